import { TOKENS_BATCH_MAX_FRAMES } from '../frames.js';
import { MAX_ATTEMPTS } from '../inference-request.js';
import { StageSchema } from '../outcomes.js';
import { MAX_REQUEST_TOKENS } from '../wire-limits.js';
import { isExactStageTimings } from './inference-request.fast.js';
import { isFiniteNumber, isId, isIntIn, isPlainObject, isTokenCount, keyCount, type KnownFields } from './wire-checks.js';

/**
 * The frames a gateway receives for every request (`held` from each stage, `end`) and for every
 * streamed token (`tokens`, `tokens-batch`). `error` and `migrate` frames are rare and carry a
 * transformed message or a defaulted field: they always go to zod. `attempt` has a default (0),
 * so the fast path insists on it.
 */
export const TOKENS_FRAME_FIELDS: KnownFields = { required: ['type', 'requestId', 'attempt', 'count', 'atMs', 'instanceId'], optional: ['generated'] };
export const END_FRAME_FIELDS: KnownFields = { required: ['type', 'requestId', 'attempt', 'reason', 'outputTokens', 'instanceId', 'timings'], optional: ['cachedTokens'] };
export const HELD_FRAME_FIELDS: KnownFields = { required: ['type', 'requestId', 'attempt', 'stage', 'holder'], optional: [] };
export const TOKENS_BATCH_FRAME_FIELDS: KnownFields = { required: ['type', 'frames'], optional: [] };

const STAGES: ReadonlySet<unknown> = new Set(StageSchema.options);

function isAttempt(value: unknown): boolean {
  return isIntIn(value, 0, MAX_ATTEMPTS);
}

/** True when `TokensFrameSchema` would take `value` and return it unchanged. */
export function isExactTokensFrame(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (!(value['type'] === 'tokens' && isId(value['requestId']) && isAttempt(value['attempt']) && isIntIn(value['count'], 1, MAX_REQUEST_TOKENS) && isFiniteNumber(value['atMs']) && isId(value['instanceId']))) return false;
  let known = TOKENS_FRAME_FIELDS.required.length;
  if (value['generated'] !== undefined) {
    if (!isIntIn(value['generated'], 1, MAX_REQUEST_TOKENS)) return false;
    known++;
  }
  return known === keyCount(value);
}

/** True when `EndFrameSchema` would take `value` and return it unchanged. */
export function isExactEndFrame(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (!(value['type'] === 'end' && isId(value['requestId']) && isAttempt(value['attempt']) && value['reason'] === 'ok' && isTokenCount(value['outputTokens']) && isId(value['instanceId']) && isExactStageTimings(value['timings']))) return false;
  let known = END_FRAME_FIELDS.required.length;
  if (value['cachedTokens'] !== undefined) {
    if (!isTokenCount(value['cachedTokens'])) return false;
    known++;
  }
  return known === keyCount(value);
}

/** True when `HeldFrameSchema` would take `value` and return it unchanged. */
export function isExactHeldFrame(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  return value['type'] === 'held' && isId(value['requestId']) && isAttempt(value['attempt']) && STAGES.has(value['stage']) && isId(value['holder']) && keyCount(value) === HELD_FRAME_FIELDS.required.length;
}

/** True when `TokensBatchFrameSchema` would take `value` and return it unchanged. */
export function isExactTokensBatchFrame(value: unknown): boolean {
  if (!isPlainObject(value) || value['type'] !== 'tokens-batch' || keyCount(value) !== TOKENS_BATCH_FRAME_FIELDS.required.length) return false;
  const frames = value['frames'];
  if (!Array.isArray(frames) || frames.length < 1 || frames.length > TOKENS_BATCH_MAX_FRAMES) return false;
  for (let i = 0; i < frames.length; i++) if (!isExactTokensFrame(frames[i])) return false;
  return true;
}

/** True when `InboxFrameSchema` would take `value` and return it unchanged (for the four hot frames; false for the others). */
export function isExactInboxFrame(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  switch (value['type']) {
    case 'held':
      return isExactHeldFrame(value);
    case 'end':
      return isExactEndFrame(value);
    case 'tokens-batch':
      return isExactTokensBatchFrame(value);
    case 'tokens':
      return isExactTokensFrame(value);
    default:
      return false;
  }
}
