import { z } from 'zod';

/** What `control.admission.get` / `set` answer: the active policy and its effective parameters. */
export const AdmissionPolicyStateSchema = z.strictObject({
  policy: z.string().min(1),
  params: z.record(z.string(), z.unknown()),
});
export type AdmissionPolicyState = z.infer<typeof AdmissionPolicyStateSchema>;

/**
 * `control.admission.set`: switch policy and/or change parameters. Omitted `policy` = the active
 * one; `params` are merged over that policy's current parameters, so one knob can change alone.
 */
export const SetAdmissionPolicySchema = z.strictObject({
  policy: z.string().min(1).optional(),
  params: z.record(z.string(), z.unknown()).default({}),
});
export type SetAdmissionPolicy = z.infer<typeof SetAdmissionPolicySchema>;

/**
 * Dynamo's busy thresholds of one model, in its HTTP field names (`/busy_threshold`). null = not
 * set (that check is off).
 */
export const BusyThresholdEntrySchema = z.strictObject({
  model: z.string().min(1),
  active_decode_blocks_threshold: z.number().min(0).max(1).nullable(),
  active_prefill_tokens_threshold: z.number().int().nonnegative().nullable(),
});
export type BusyThresholdEntry = z.infer<typeof BusyThresholdEntrySchema>;

/**
 * `POST /busy_threshold` body, and `control.admission.set-busy-threshold`: a field that is absent
 * keeps its value, null clears it; only `model` = read that model's thresholds.
 */
export const BusyThresholdUpdateSchema = z.strictObject({
  model: z.string().min(1),
  active_decode_blocks_threshold: z.number().min(0).max(1).nullable().optional(),
  active_prefill_tokens_threshold: z.number().int().nonnegative().nullable().optional(),
});
export type BusyThresholdUpdate = z.infer<typeof BusyThresholdUpdateSchema>;

/** `GET /busy_threshold` and `control.admission.get-busy-threshold`. */
export const BusyThresholdListSchema = z.strictObject({ thresholds: z.array(BusyThresholdEntrySchema) });
export type BusyThresholdList = z.infer<typeof BusyThresholdListSchema>;
