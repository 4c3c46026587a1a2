import { describe, expect, it } from 'vitest';
import { kvTransferDurationUs } from './kv-transfer.js';
import { NIXL_TRANSFER_COUNTERS, NIXL_TRANSFER_HISTOGRAMS, kvTransferObservation } from './kv-transfer-observation.js';

const model = { setupUs: 40, perBlockUs: 1, bandwidthBytesPerSecond: 1e10 };

describe('kvTransferObservation', () => {
  it('gives the four NIXL histograms one value each, in seconds, bytes and descriptors', () => {
    expect(kvTransferObservation(model, 8, 1_000_000)).toEqual({
      xferTimeSeconds: kvTransferDurationUs(model, 8, 1_000_000) / 1e6,
      postTimeSeconds: 40e-6,
      bytesTransferred: 8_000_000,
      numDescriptors: 8,
    });
  });

  it('records nothing for an empty transfer', () => {
    expect(kvTransferObservation(model, 0, 1_000_000)).toBeUndefined();
  });

  it("names the seven series vLLM's NIXL connector exports", () => {
    expect([...Object.values(NIXL_TRANSFER_HISTOGRAMS), ...Object.values(NIXL_TRANSFER_COUNTERS)].sort()).toEqual([
      'vllm:nixl_bytes_transferred',
      'vllm:nixl_num_descriptors',
      'vllm:nixl_num_failed_notifications',
      'vllm:nixl_num_failed_transfers',
      'vllm:nixl_num_kv_expired_reqs',
      'vllm:nixl_post_time_seconds',
      'vllm:nixl_xfer_time_seconds',
    ]);
  });
});
