import { describe, expect, it } from 'vitest';
import { ConfigSchema, ackMarginOf } from './config.schema.js';

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

describe('ConfigSchema: nats.ackMarginMs', () => {
  it('defaults to 250 ms, or a quarter of a shorter ack timeout', () => {
    expect(ackMarginOf(ConfigSchema.parse({}).nats)).toBe(250);
    expect(ackMarginOf(ConfigSchema.parse({ nats: { ackTimeoutMs: 300 } }).nats)).toBe(75);
    expect(ackMarginOf(ConfigSchema.parse({ nats: { ackMarginMs: 100 } }).nats)).toBe(100);
  });

  it('refuses a margin over half the ack timeout, naming the key', () => {
    const result = ConfigSchema.safeParse({ nats: { ackTimeoutMs: 400, ackMarginMs: 250 } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['nats', 'ackMarginMs']);
    expect(result.error?.issues[0]?.message).toMatch(/more than half of nats.ackTimeoutMs/);
  });
});
