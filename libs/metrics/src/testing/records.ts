import type { RequestRecord } from '../types.js';

/** A test record: a completed request of tenant 't', class 'c', arriving at 0 with no tokens, unless the test says otherwise. */
export const requestRecord = (over: Partial<RequestRecord> & Pick<RequestRecord, 'id'>): RequestRecord => ({
  fairnessId: 't',
  sloClass: 'c',
  arrivalMs: 0,
  outputTokens: 0,
  outcome: 'completed',
  ...over,
});
