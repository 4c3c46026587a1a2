import { z } from 'zod';
import { DurationSchema, microsFromMillis } from '@sluice/contracts';
import { snapSaturation, type SaturationDetector } from '../../ports.js';

export const UTILIZATION_DETECTOR = 'utilization-detector';

export const UtilizationDetectorParamsSchema = z.strictObject({
  /** Waiting requests at which one endpoint counts as full. */
  queueDepthThreshold: z.number().positive().default(5),
  /** KV-cache utilization (0–1] at which one endpoint counts as full. */
  kvCacheUtilThreshold: z.number().gt(0).max(1).default(0.8),
  /** A snapshot older than this says nothing: the endpoint counts as saturated. */
  metricsStalenessThreshold: DurationSchema.default(200),
});
export type UtilizationDetectorParams = z.infer<typeof UtilizationDetectorParamsSchema>;

/**
 * Saturation from the endpoints' own reports (docs/behaviour.md §3, the Endpoint Picker's default
 * detector): per endpoint max(queueDepth / queueDepthThreshold, kvUtilization /
 * kvCacheUtilThreshold), averaged over endpoints. An endpoint whose snapshot is stale scores 1;
 * no endpoint at all is saturated (there is nowhere to send work).
 *
 * Snapshots lag: requests dispatched since an endpoint's snapshot are not in its queue depth yet.
 * Those still in flight are added, spread evenly over the endpoints, so a burst is held back before
 * the next snapshot shows it rather than after. The finished ones were once added too:
 * at 2,000 requests/s of 1-token requests on 16 idle instances with 50 ms snapshots, requests long
 * done read as 6 queued per endpoint, and the pool as saturated (every request queued ~130 ms).
 */
export function createUtilizationDetector(params: unknown): SaturationDetector {
  const { queueDepthThreshold, kvCacheUtilThreshold, metricsStalenessThreshold } = UtilizationDetectorParamsSchema.parse(params);
  // The parameter is a duration in ms, as the Endpoint Picker's config writes it; ages are µs.
  const stalenessUs = microsFromMillis(metricsStalenessThreshold);
  return {
    name: UTILIZATION_DETECTOR,
    saturation(signals) {
      // Called on `signals`, not destructured: an implementation may be a class that needs `this`.
      const { endpoints } = signals;
      if (endpoints.length === 0) return 1;
      let sum = 0;
      for (const e of endpoints) {
        if (!(e.snapshotAgeUs <= stalenessUs)) {
          sum += 1;
          continue;
        }
        const unseen = signals.inFlightDispatchedWithin(e.snapshotAgeUs) / endpoints.length;
        sum += Math.max((e.queueDepth + unseen) / queueDepthThreshold, e.kvUtilization / kvCacheUtilThreshold);
      }
      return snapSaturation(sum / endpoints.length);
    },
  };
}
