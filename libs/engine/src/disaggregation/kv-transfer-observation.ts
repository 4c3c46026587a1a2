import { kvTransferDurationUs, type KvTransferModel } from './kv-transfer.js';

/**
 * What vLLM's NIXL connector records for one finished transfer, under the names its KV-cache
 * dashboard queries (vllm-project/vllm `vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py`,
 * @ 0f120751344c09af442c1800020908d2b7ff71f2,
 * `NixlPromMetrics`): four histograms per transfer. The failure, failed-notification and
 * expired-request counters count events, not transfers, so a driver increments them itself.
 * A decode instance records the transfer it pulled, as vLLM's consumer side does.
 */
export const NIXL_TRANSFER_HISTOGRAMS = {
  xferTimeSeconds: 'vllm:nixl_xfer_time_seconds',
  postTimeSeconds: 'vllm:nixl_post_time_seconds',
  bytesTransferred: 'vllm:nixl_bytes_transferred',
  numDescriptors: 'vllm:nixl_num_descriptors',
} as const;

export const NIXL_TRANSFER_COUNTERS = {
  failedTransfers: 'vllm:nixl_num_failed_transfers',
  failedNotifications: 'vllm:nixl_num_failed_notifications',
  kvExpiredRequests: 'vllm:nixl_num_kv_expired_reqs',
} as const;

export interface KvTransferObservation {
  /** The whole transfer, setup included. */
  readonly xferTimeSeconds: number;
  /** Posting it: the model's setup (the handshake before any byte moves). */
  readonly postTimeSeconds: number;
  readonly bytesTransferred: number;
  /** One descriptor per block. */
  readonly numDescriptors: number;
}

/** The observations of moving `blocks` blocks, or undefined when nothing moves (vLLM records no transfer then). */
export function kvTransferObservation(model: KvTransferModel, blocks: number, bytesPerBlock: number): KvTransferObservation | undefined {
  if (blocks === 0) return undefined;
  return {
    xferTimeSeconds: kvTransferDurationUs(model, blocks, bytesPerBlock) / 1e6,
    postTimeSeconds: model.setupUs / 1e6,
    bytesTransferred: blocks * bytesPerBlock,
    numDescriptors: blocks,
  };
}
