import type { z } from 'zod';
import { PolicyRegistry } from '../registry.js';
import type { AdmissionPolicy } from './admission-policy.js';
import { ALWAYS_ADMIT, AlwaysAdmitParamsSchema, createAlwaysAdmit } from './always-admit/always-admit.policy.js';
import { BUSY_THRESHOLD, BusyThresholdParamsSchema, createBusyThreshold } from './busy-threshold/busy-threshold.policy.js';
import { REJECT_ALL, RejectAllParamsSchema, createRejectAll } from './reject-all/reject-all.policy.js';
import { SLO_GATED, SloGatedParamsSchema, createSloGated } from './slo-gated/slo-gated.policy.js';
import { SLO_PREDICTIVE, SloPredictiveParamsSchema, createSloPredictive } from './slo-predictive/slo-predictive.policy.js';
import { TOKEN_BUCKET, TokenBucketParamsSchema, createTokenBucket } from './token-bucket/token-bucket.policy.js';

/** Every built-in admission policy, by the name config uses. */
export const ADMISSION_POLICY_NAMES = [ALWAYS_ADMIT, TOKEN_BUCKET, REJECT_ALL, SLO_PREDICTIVE, BUSY_THRESHOLD, SLO_GATED] as const;
export type AdmissionPolicyName = (typeof ADMISSION_POLICY_NAMES)[number];

/**
 * Each policy's parameter schema, so config can validate `admission.policies.<name>.<param>` at
 * start-up and fail with the key's path. Every schema accepts `{}` (all defaults) and parses to
 * an object. One common type, so it can be indexed by any name; for a typed parse, use the
 * policy's own schema (e.g. `BusyThresholdParamsSchema`).
 */
export const ADMISSION_POLICY_PARAMS: { readonly [K in AdmissionPolicyName]: z.ZodType<Record<string, unknown>> } = {
  [ALWAYS_ADMIT]: AlwaysAdmitParamsSchema,
  [TOKEN_BUCKET]: TokenBucketParamsSchema,
  [REJECT_ALL]: RejectAllParamsSchema,
  [SLO_PREDICTIVE]: SloPredictiveParamsSchema,
  [BUSY_THRESHOLD]: BusyThresholdParamsSchema,
  [SLO_GATED]: SloGatedParamsSchema,
};

/** Factories take raw params and parse them with their own schema (a bad one throws its ZodError). */
export type AdmissionPolicyRegistry = PolicyRegistry<AdmissionPolicy, unknown>;

export function registerBuiltInAdmissionPolicies(registry: AdmissionPolicyRegistry): AdmissionPolicyRegistry {
  return registry
    .register(ALWAYS_ADMIT, createAlwaysAdmit)
    .register(TOKEN_BUCKET, createTokenBucket)
    .register(REJECT_ALL, createRejectAll)
    .register(SLO_PREDICTIVE, createSloPredictive)
    .register(BUSY_THRESHOLD, createBusyThreshold)
    .register(SLO_GATED, createSloGated);
}

export function createAdmissionRegistry(): AdmissionPolicyRegistry {
  return registerBuiltInAdmissionPolicies(new PolicyRegistry('admission policy'));
}
