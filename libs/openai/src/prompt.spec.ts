import { describe, expect, it } from 'vitest';
import { BLOCK_SIZE, blockIds } from '@sluice/contracts';
import { outputTokenIds } from './prompt.js';
import { tokenize } from './tokenizer.js';

describe('outputTokenIds', () => {
  it('gives one id per output token, so a migrated request counts its output as the worker does', () => {
    for (const count of [0, 1, 7, 16, 64, 333]) expect(outputTokenIds(count)).toHaveLength(count);
  });

  it('keeps a re-submission within its full blocks: the prompt plus the output so far never has more block ids than tokens / block size', () => {
    const prompt = tokenize('Summarise the following report on sluice gates and their keepers. '.repeat(9));
    for (const sent of [1, 15, 16, 17, 100, 257]) {
      const ids = blockIds([...prompt, ...outputTokenIds(sent)]);
      expect(ids.length).toBeLessThanOrEqual(Math.floor((prompt.length + sent) / BLOCK_SIZE));
    }
  });

});
