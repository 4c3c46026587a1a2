import { z } from 'zod';
import type { AdmissionPolicy } from '../admission-policy.js';

export const ALWAYS_ADMIT = 'always-admit';

/** No parameters; strict, so a misspelt knob is an error at start-up rather than ignored. */
export const AlwaysAdmitParamsSchema = z.strictObject({});

/** Admits everything: the default, and the baseline every other policy is measured against. */
export function createAlwaysAdmit(params: unknown = {}): AdmissionPolicy {
  AlwaysAdmitParamsSchema.parse(params);
  return { name: ALWAYS_ADMIT, decide: () => ({ admit: true, inputs: {} }) };
}
