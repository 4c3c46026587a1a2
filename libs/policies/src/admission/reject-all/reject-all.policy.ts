import { z } from 'zod';
import type { AdmissionPolicy } from '../admission-policy.js';

export const REJECT_ALL = 'reject-all';

export const RejectAllParamsSchema = z.strictObject({});

/** Rejects everything: exercises the rejection path end to end (BLIS has the same test policy). */
export function createRejectAll(params: unknown = {}): AdmissionPolicy {
  RejectAllParamsSchema.parse(params);
  return {
    name: REJECT_ALL,
    decide: () => ({ admit: false, reason: 'rejected_by_policy', message: `rejected by policy ${REJECT_ALL}`, inputs: {} }),
  };
}
