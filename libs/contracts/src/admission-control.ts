import { z } from 'zod';

/**
 * What `control.admission.get` / `set` answer: the admission chain (one policy, or several
 * comma-joined in the order they are checked) and the effective parameters: the only check's, or
 * for several, each check's under its name.
 */
export const AdmissionPolicyStateSchema = z.strictObject({
  policy: z.string().min(1),
  params: z.record(z.string(), z.unknown()),
});
export type AdmissionPolicyState = z.infer<typeof AdmissionPolicyStateSchema>;

/**
 * `control.admission.set`: switch the chain and/or change parameters. `policy`: one name, a
 * comma-separated list or a list, checked in that order (omitted = the active chain). `params`
 * are merged over the current parameters, so one knob can change alone: a key that names a policy
 * holds that policy's parameters, any other key is a parameter of the chain's only check.
 */
export const SetAdmissionPolicySchema = z.strictObject({
  policy: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
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

/** One busy threshold field: unset (absent) = that check is off. */
const DecodeBlocksThreshold = z.number().min(0).max(1);
const PrefillTokensThreshold = z.number().int().nonnegative();

/**
 * A model's override of the busy thresholds, field by field: a number replaces the top-level
 * value, null switches that check off for this model even where a top-level value is set, absent
 * keeps the top-level value.
 */
export const BusyThresholdOverrideSchema = z.strictObject({
  activeDecodeBlocksThreshold: DecodeBlocksThreshold.nullable().optional(),
  activePrefillTokensThreshold: PrefillTokensThreshold.nullable().optional(),
});
export type BusyThresholdOverride = z.infer<typeof BusyThresholdOverrideSchema>;

/**
 * Dynamo's busy thresholds as sluice keeps them (`admission.policies.busy-threshold`): top-level
 * values for every model, and per-model overrides.
 */
export const BusyThresholdSettingsSchema = z.strictObject({
  activeDecodeBlocksThreshold: DecodeBlocksThreshold.optional(),
  activePrefillTokensThreshold: PrefillTokensThreshold.optional(),
  models: z.record(z.string().min(1), BusyThresholdOverrideSchema).optional(),
});
export type BusyThresholdSettings = z.infer<typeof BusyThresholdSettingsSchema>;

/**
 * `sluice.v1.admission.busy-thresholds`: admission's busy thresholds, published by every admission
 * replica when they change, at its start and at every expiry sweep, heard by every router replica
 * (which routes only among free instances) and every admission replica. `changedAtUs` is when they
 * were last changed (epoch µs; 0 = as configured): a receiver keeps the newest, so a replica that
 * restarted with the configured values does not undo a run-time change its peers hold.
 */
export const BusyThresholdsAnnouncementSchema = z.strictObject({
  settings: BusyThresholdSettingsSchema,
  changedAtUs: z.number().nonnegative(),
});
export type BusyThresholdsAnnouncement = z.infer<typeof BusyThresholdsAnnouncementSchema>;
