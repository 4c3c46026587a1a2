import type { AdmissionPolicy } from '../admission-policy.js';

export const ALWAYS_ADMIT = 'always-admit';

/** Admits everything: the default, and the baseline every other policy is measured against. */
export function createAlwaysAdmit(): AdmissionPolicy {
  return { name: ALWAYS_ADMIT, decide: () => ({ admit: true, inputs: {} }) };
}
