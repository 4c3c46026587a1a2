import { describe, expect, it } from 'vitest';
import { ConfigSchema } from './config.schema.js';

describe('ConfigSchema: worker.compat (BLIS parity mode)', () => {
  it('defaults to vllm: BLIS mode is opt-in', () => {
    expect(ConfigSchema.parse({}).worker.compat).toBe('vllm');
  });

  it('takes blis', () => {
    expect(ConfigSchema.parse({ worker: { compat: 'blis' } }).worker.compat).toBe('blis');
  });

  it('rejects any other simulator, naming the key', () => {
    const result = ConfigSchema.safeParse({ worker: { compat: 'sglang' } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['worker', 'compat']);
  });
});
