import { describe, expect, it } from 'vitest';
import { NO_TOKENS, TOKEN_VOCAB_SIZE, drawPrompt, drawTokenIds } from './token-ids.js';

/** A source that replays fixed draws in [0, 1). */
const replay = (draws: readonly number[]) => {
  let i = 0;
  return () => draws[i++]!;
};

describe('token ids', () => {
  it('draws ids uniformly over the vocabulary, in the order of the source', () => {
    expect([...drawTokenIds(replay([0, 0.5, 0.999_999_9]), 3)]).toEqual([0, TOKEN_VOCAB_SIZE / 2, TOKEN_VOCAB_SIZE - 1]);
  });

  it('a prompt is the prefix, unchanged, then its own ids', () => {
    const prefix = Uint32Array.of(7, 8, 9);
    const prompt = drawPrompt(replay([0.25, 0.75]), prefix, 2);
    expect([...prompt]).toEqual([7, 8, 9, TOKEN_VOCAB_SIZE / 4, (3 * TOKEN_VOCAB_SIZE) / 4]);
    expect([...prefix]).toEqual([7, 8, 9]);
    expect(drawPrompt(replay([]), NO_TOKENS, 0)).toHaveLength(0);
  });
});
