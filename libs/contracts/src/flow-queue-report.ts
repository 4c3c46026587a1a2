import { z } from 'zod';
import { MicrosSchema } from './time.js';
import { IdSchema, MAX_PRIORITY, MIN_PRIORITY, NameSchema } from './wire-limits.js';

/** Bands a report lists at most: a flow controller retires bands nobody uses, so real ones hold a handful. */
export const MAX_REPORTED_BANDS = 1024;

/** Requests waiting in one priority band of one model's queue. */
export const FlowQueueBandSchema = z.strictObject({
  model: NameSchema,
  priority: z.number().int().min(MIN_PRIORITY).max(MAX_PRIORITY),
  requests: z.number().int().positive(),
});
export type FlowQueueBand = z.infer<typeof FlowQueueBandSchema>;

/**
 * What one flow-controller process holds queued, by model and priority band
 * (`subjects.flowQueue`): published every `flowController.queueReportIntervalMs`, whether or not
 * it changed, so a reader judges it by its age and can tell an empty queue from a silent
 * controller. Admission reads it to count the requests that will be dispatched before a new one
 * (docs/behaviour.md §2). Bands with nothing queued are left out.
 */
export const FlowQueueReportSchema = z.strictObject({
  processId: IdSchema,
  /** When the controller took it: epoch µs (virtual µs in the twin). */
  atUs: MicrosSchema,
  bands: z.array(FlowQueueBandSchema).max(MAX_REPORTED_BANDS),
});
export type FlowQueueReport = z.infer<typeof FlowQueueReportSchema>;
