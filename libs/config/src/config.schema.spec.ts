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

describe('ConfigSchema: the KV-event index keys', () => {
  it('take a value with a policy that reads KV events', () => {
    const router = ConfigSchema.parse({ router: { policy: 'weighted', policies: { weighted: { weights: 'precise-prefix-cache:2,queue-depth:1' } }, kvEventRefreshMs: 0 } }).router;
    expect(router.kvEventRefreshMs).toBe(0);
    expect(ConfigSchema.parse({ router: { policy: 'kv-router', kvEventIndexCapacity: 500 } }).router.kvEventIndexCapacity).toBe(500);
  });

  it('are refused, naming the key, with a policy that reads none: they would change nothing', () => {
    for (const router of [{ policy: 'round-robin', kvEventRefreshMs: 10 }, { policy: 'weighted', kvEventIndexCapacity: 5 }, { policy: 'kv-router', policies: { 'kv-router': { useKvEvents: false } }, kvEventRefreshMs: 10 }]) {
      const result = ConfigSchema.safeParse({ router });
      expect(result.success, JSON.stringify(router)).toBe(false);
      expect(result.error?.issues[0]?.path[0]).toBe('router');
      expect(result.error?.issues[0]?.message).toMatch(/reads the workers' KV events/);
    }
  });
});

describe('ConfigSchema: router.decisionTrace', () => {
  it('names a file for one router, and is off by default', () => {
    expect(ConfigSchema.parse({}).router.decisionTrace).toBeUndefined();
    expect(ConfigSchema.parse({ router: { decisionTrace: 'decisions.ndjson' } }).router.decisionTrace).toBe('decisions.ndjson');
  });

  it('is refused, naming the key, with several router replicas: each would truncate the others\' file', () => {
    const result = ConfigSchema.safeParse({ router: { replicas: 2, decisionTrace: 'decisions.ndjson' } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['router', 'decisionTrace']);
    expect(result.error?.issues[0]?.message).toMatch(/truncate/);
  });
});
