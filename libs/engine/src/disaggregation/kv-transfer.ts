import { z } from 'zod';

/**
 * The cost of moving a request's KV blocks from a prefill instance to a decode instance.
 *
 * duration = setup + blocks × perBlock + blocks × bytesPerBlock / bandwidth
 *
 * `setup` is paid once per transfer (the handshake and completion notification: vLLM's NIXL
 * connector reports it apart as `vllm:nixl_post_time_seconds`); `perBlock` is the descriptor cost
 * of each block (one RDMA work request per block, `vllm:nixl_num_descriptors`); the last term is
 * the wire. Pure arithmetic in µs: the caller schedules the transfer's end.
 */
export const KvTransferModelSchema = z.strictObject({
  /** Paid once per transfer, µs. */
  setupUs: z.number().finite().nonnegative(),
  /** Paid per block transferred, µs. */
  perBlockUs: z.number().finite().nonnegative(),
  /** Link bandwidth, bytes per second. */
  bandwidthBytesPerSecond: z.number().finite().positive(),
});
export type KvTransferModel = z.infer<typeof KvTransferModelSchema>;

/**
 * Named link profiles. The figures are assumptions stated here, not measurements: `nixl` is one
 * 400 Gb/s RDMA NIC (50 GB/s) with a few µs per posted descriptor, the shape of vLLM's NIXL
 * connector on InfiniBand; `tcp` is a 100 Gb/s Ethernet path through the host, an order of
 * magnitude costlier per block. Users with their own link give the three numbers instead.
 */
export const KV_TRANSFER_PROFILES = {
  nixl: { setupUs: 50, perBlockUs: 2, bandwidthBytesPerSecond: 50e9 },
  tcp: { setupUs: 500, perBlockUs: 20, bandwidthBytesPerSecond: 12.5e9 },
} as const satisfies Readonly<Record<string, KvTransferModel>>;
export type KvTransferProfileName = keyof typeof KV_TRANSFER_PROFILES;
export const KV_TRANSFER_PROFILE_NAMES = Object.keys(KV_TRANSFER_PROFILES) as readonly KvTransferProfileName[];

/**
 * Bytes one KV block holds: K and V, for every layer and KV head, `blockSize` tokens deep.
 * Qwen3-14B in bf16 (40 layers, 8 KV heads of 128) holds 2 × 40 × 8 × 128 × 2 B = 160 KiB per
 * token, 2.5 MiB per 16-token block.
 */
export function kvBytesPerBlock(shape: { readonly layers: number; readonly kvHeads: number; readonly headDim: number; readonly dtypeBytes: number; readonly blockSize: number }): number {
  return 2 * shape.layers * shape.kvHeads * shape.headDim * shape.dtypeBytes * shape.blockSize;
}

/** How long moving `blocks` blocks of `bytesPerBlock` bytes takes, in µs; 0 blocks cost nothing (a full prefix hit on the decode side). */
export function kvTransferDurationUs(model: KvTransferModel, blocks: number, bytesPerBlock: number): number {
  if (!Number.isInteger(blocks) || blocks < 0) throw new RangeError(`blocks must be a non-negative integer, got ${blocks}`);
  if (blocks === 0) return 0;
  const wireUs = (blocks * bytesPerBlock * 1e6) / model.bandwidthBytesPerSecond;
  return model.setupUs + blocks * model.perBlockUs + wireUs;
}
