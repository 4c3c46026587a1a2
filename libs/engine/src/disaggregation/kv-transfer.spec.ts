import { describe, expect, it } from 'vitest';
import { KV_TRANSFER_PROFILES, KvTransferModelSchema, kvBytesPerBlock, kvTransferDurationUs } from './kv-transfer.js';

const qwen3_14b = { layers: 40, kvHeads: 8, headDim: 128, dtypeBytes: 2, blockSize: 16 };

describe('kvBytesPerBlock', () => {
  it('counts K and V for every layer and KV head, a block deep', () => {
    expect(kvBytesPerBlock(qwen3_14b)).toBe(2 * 40 * 8 * 128 * 2 * 16);
    expect(kvBytesPerBlock({ ...qwen3_14b, blockSize: 32 })).toBe(2 * kvBytesPerBlock(qwen3_14b));
  });
});

describe('kvTransferDurationUs', () => {
  const model = { setupUs: 100, perBlockUs: 3, bandwidthBytesPerSecond: 1e9 };

  it('is setup + per-block cost + bytes over bandwidth', () => {
    // 10 blocks of 1 MB at 1 GB/s: 10 ms on the wire.
    expect(kvTransferDurationUs(model, 10, 1e6)).toBeCloseTo(100 + 30 + 10_000, 6);
  });

  it('costs nothing when no block moves, so a full hit on the decode side skips the setup too', () => {
    expect(kvTransferDurationUs(model, 0, 1e6)).toBe(0);
  });

  it('grows linearly in blocks past the setup', () => {
    const one = kvTransferDurationUs(model, 1, 2e5);
    const many = kvTransferDurationUs(model, 101, 2e5);
    expect(many - one).toBeCloseTo(100 * (model.perBlockUs + 200), 6);
  });

  it('refuses a fractional or negative block count', () => {
    expect(() => kvTransferDurationUs(model, -1, 1)).toThrow(RangeError);
    expect(() => kvTransferDurationUs(model, 1.5, 1)).toThrow(RangeError);
  });

  it('makes the nixl profile faster than tcp for any non-empty transfer', () => {
    const bytes = kvBytesPerBlock(qwen3_14b);
    for (const blocks of [1, 64, 4096]) {
      expect(kvTransferDurationUs(KV_TRANSFER_PROFILES.nixl, blocks, bytes)).toBeLessThan(kvTransferDurationUs(KV_TRANSFER_PROFILES.tcp, blocks, bytes));
    }
  });
});

describe('KvTransferModelSchema', () => {
  it('accepts every named profile and refuses a zero bandwidth or an unknown key', () => {
    for (const profile of Object.values(KV_TRANSFER_PROFILES)) expect(KvTransferModelSchema.parse(profile)).toEqual(profile);
    expect(KvTransferModelSchema.safeParse({ setupUs: 0, perBlockUs: 0, bandwidthBytesPerSecond: 0 }).success).toBe(false);
    expect(KvTransferModelSchema.safeParse({ ...KV_TRANSFER_PROFILES.nixl, latency: 1 }).success).toBe(false);
  });
});
