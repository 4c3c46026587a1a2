import { NIXL_TRANSFER_COUNTERS, NIXL_TRANSFER_HISTOGRAMS, type KvTransferObservation } from '@sluice/engine';
import { LeanCounter, LeanHistogram, pythonFloatString, type CounterChild, type HistogramChild, type Registry } from '@sluice/telemetry';

/**
 * What vLLM's NIXL KV connector exports per engine, under its names, help and bucket bounds
 * (vllm-project/vllm `vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py`,
 * `NixlPromMetrics`, @ 0f120751344c09af442c1800020908d2b7ff71f2), so the NIXL panels of vLLM's
 * KV-cache dashboard read a disaggregated sluice run unchanged. Registered only when the worker's
 * instances are disaggregated, as vLLM registers them only with the connector configured.
 * Counters carry prometheus_client's `_total` suffix.
 */

type L = 'model_name' | 'engine';
const labelNames = ['model_name', 'engine'] as const;

/** vLLM's transfer-time family; the xfer histogram drops its first bound (1 ms). */
const TRANSFER_SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 5];
/** 2 KiB to 8 GiB, every other power of two. */
const TRANSFER_BYTES = Array.from({ length: 12 }, (_, i) => 2 ** (11 + 2 * i));
const DESCRIPTORS = [10, 20, 30, 50, 75, 100, 200, 400, 1000, 2000, 4000, 10000, 20000, 50000];

export interface KvTransferMetrics {
  readonly xferTime: LeanHistogram<L>;
  readonly postTime: LeanHistogram<L>;
  readonly bytes: LeanHistogram<L>;
  readonly descriptors: LeanHistogram<L>;
  readonly failedTransfers: LeanCounter<L>;
  readonly failedNotifications: LeanCounter<L>;
  readonly expiredRequests: LeanCounter<L>;
}

export function createKvTransferMetrics(registers: Registry): KvTransferMetrics {
  const r = [registers];
  const histogram = (name: string, help: string, buckets: number[]) => new LeanHistogram<L>({ name, help, labelNames, buckets, formatLe: pythonFloatString, registers: r });
  const counter = (name: string, help: string) => new LeanCounter<L>({ name: `${name}_total`, help, labelNames, registers: r });
  return {
    xferTime: histogram(NIXL_TRANSFER_HISTOGRAMS.xferTimeSeconds, 'Histogram of transfer duration for NIXL KV Cache transfers.', TRANSFER_SECONDS.slice(1)),
    postTime: histogram(NIXL_TRANSFER_HISTOGRAMS.postTimeSeconds, 'Histogram of transfer post time for NIXL KV Cache transfers.', TRANSFER_SECONDS),
    bytes: histogram(NIXL_TRANSFER_HISTOGRAMS.bytesTransferred, 'Histogram of bytes transferred per NIXL KV Cache transfers.', TRANSFER_BYTES),
    descriptors: histogram(NIXL_TRANSFER_HISTOGRAMS.numDescriptors, 'Histogram of number of descriptors per NIXL KV Cache transfers.', DESCRIPTORS),
    failedTransfers: counter(NIXL_TRANSFER_COUNTERS.failedTransfers, 'Number of failed NIXL KV Cache transfers.'),
    failedNotifications: counter(NIXL_TRANSFER_COUNTERS.failedNotifications, 'Number of failed NIXL KV Cache notifications (sluice has no notification channel: 0).'),
    expiredRequests: counter(NIXL_TRANSFER_COUNTERS.kvExpiredRequests, 'Number of requests that had their KV expire (sluice holds no lease: 0).'),
  };
}

/** One instance's NIXL series, every one present from the start. */
export interface BoundKvTransferMetrics {
  observe(observation: KvTransferObservation): void;
  readonly failedTransfers: CounterChild;
}

export function bindKvTransfer(m: KvTransferMetrics, model: string, engine: string): BoundKvTransferMetrics {
  const l = { model_name: model, engine };
  const histograms: readonly [HistogramChild, keyof KvTransferObservation][] = [
    [m.xferTime.labels(l), 'xferTimeSeconds'],
    [m.postTime.labels(l), 'postTimeSeconds'],
    [m.bytes.labels(l), 'bytesTransferred'],
    [m.descriptors.labels(l), 'numDescriptors'],
  ];
  for (const c of [m.failedNotifications, m.expiredRequests]) c.inc(l, 0);
  const failedTransfers = m.failedTransfers.labels(l);
  return {
    observe(observation) {
      for (const [histogram, key] of histograms) histogram.observe(observation[key]);
    },
    failedTransfers,
  };
}
