import { BLOCK_SIZE } from '../block-hashes.js';
import { MAX_ATTEMPTS } from '../inference-request.js';
import { SloClassSchema } from '../slo.js';
import { PROTOCOL_ROOT } from '../subjects.js';
import { MAX_BODY_BYTES, MAX_CLOCK_ID_LENGTH, MAX_NAME_LENGTH, MAX_PRIORITY, MAX_REPLY_TO_LENGTH, MAX_REQUEST_TOKENS, MIN_PRIORITY } from '../wire-limits.js';
import {
  isBlockIds,
  isFiniteNumber,
  isIntIn,
  isName,
  isNonNegative,
  isPlainObject,
  isStringOf,
  isSubjectId,
  isTokenCount,
  keyCount,
  type KnownFields,
} from './wire-checks.js';

/** `StageTimingsSchema`'s fields: every one optional (`.partial()`). */
export const STAGE_TIMINGS_FIELDS: KnownFields = {
  required: [],
  optional: [
    'clientSendMs',
    'gatewayInMs',
    'toAdmissionMs',
    'admissionMs',
    'toFlowMs',
    'flowQueueMs',
    'toRouterMs',
    'routingMs',
    'toWorkerMs',
    'workerQueueMs',
    'prefillMs',
    'decodeMs',
    'toGatewayMs',
    'sentAtMs',
    'sentOn',
  ],
};

/**
 * `InferenceRequestSchema`'s fields. `bodyBytes` and `timings` have defaults, so the fast path
 * insists on them: zod would fill them in, and its output would differ from the input.
 */
export const INFERENCE_REQUEST_FIELDS: KnownFields = {
  required: ['id', 'model', 'inputTokens', 'blockHashes', 'maxTokens', 'bodyBytes', 'sloClass', 'priority', 'fairnessId', 'arrivalUs', 'deadlineUs', 'attempt', 'gatewayId', 'replyTo', 'timings'],
  optional: ['objective', 'sloTtftUs', 'prefillInstanceId'],
};

const SLO_CLASSES: ReadonlySet<unknown> = new Set(SloClassSchema.options);
const MAX_BLOCK_IDS = MAX_REQUEST_TOKENS / BLOCK_SIZE;
const INBOX_PREFIX = `${PROTOCOL_ROOT}.inbox.`;

/** True when `StageTimingsSchema` would take `value` and return it unchanged. */
export function isExactStageTimings(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  let known = 0;
  for (const key of STAGE_TIMINGS_FIELDS.optional) {
    const field = value[key];
    if (field === undefined) continue;
    if (key === 'sentOn' ? !isStringOf(field, 0, MAX_CLOCK_ID_LENGTH) : !isNonNegative(field)) return false;
    known++;
  }
  return known === keyCount(value);
}

/**
 * True when `InferenceRequestSchema` would take `value` and return it unchanged: every field
 * within its bounds, no field missing or defaulted, no unknown key, and the schema's two
 * cross-field rules (the inbox and the block count) hold.
 */
export function isExactInferenceRequest(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const r = value;
  if (
    !(
      isSubjectId(r['id']) &&
      isName(r['model']) &&
      isTokenCount(r['inputTokens']) &&
      isBlockIds(r['blockHashes'], MAX_BLOCK_IDS) &&
      isTokenCount(r['maxTokens']) &&
      isIntIn(r['bodyBytes'], 0, MAX_BODY_BYTES) &&
      SLO_CLASSES.has(r['sloClass']) &&
      isIntIn(r['priority'], MIN_PRIORITY, MAX_PRIORITY) &&
      isStringOf(r['fairnessId'], 0, MAX_NAME_LENGTH) &&
      isFiniteNumber(r['arrivalUs']) &&
      isFiniteNumber(r['deadlineUs']) &&
      isIntIn(r['attempt'], 0, MAX_ATTEMPTS) &&
      isSubjectId(r['gatewayId']) &&
      isStringOf(r['replyTo'], 1, MAX_REPLY_TO_LENGTH) &&
      isExactStageTimings(r['timings'])
    )
  ) {
    return false;
  }
  let known = INFERENCE_REQUEST_FIELDS.required.length;
  if (r['objective'] !== undefined) {
    if (!isStringOf(r['objective'], 0, MAX_NAME_LENGTH)) return false;
    known++;
  }
  if (r['sloTtftUs'] !== undefined) {
    if (!(isFiniteNumber(r['sloTtftUs']) && r['sloTtftUs'] > 0)) return false;
    known++;
  }
  if (r['prefillInstanceId'] !== undefined) {
    if (!isSubjectId(r['prefillInstanceId'])) return false;
    known++;
  }
  if (known !== keyCount(r)) return false;
  // The schema's cross-field rules (its superRefine), as it states them.
  const blockCount = (r['blockHashes'] as unknown[]).length;
  return r['replyTo'] === `${INBOX_PREFIX}${r['gatewayId']}.${r['id']}` && blockCount <= Math.floor(r['inputTokens'] / BLOCK_SIZE);
}
