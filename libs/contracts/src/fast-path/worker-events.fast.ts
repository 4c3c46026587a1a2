import { OutcomeReasonSchema } from '../outcomes.js';
import { MAX_KV_BLOCKS, MAX_KV_EVENT_BLOCKS, MAX_RANK } from '../wire-limits.js';
import { isBlockIds, isCount, isFiniteNumber, isId, isIntIn, isPlainObject, isShare, isSubjectId, keyCount, type KnownFields } from './wire-checks.js';

/**
 * The worker events each request makes: a load snapshot at each change of an instance's load
 * (about 1.6 a request, each heard by admission, the flow controller and the router), a done
 * event (heard by the flow controller and the router), and, for a prompt of a full block or more,
 * KV events at the engine steps that store or evict its blocks (heard by admission and the router).
 */
export const LOAD_SNAPSHOT_FIELDS: KnownFields = {
  required: ['instanceId', 'workerId', 'rank', 'atUs', 'queueDepth', 'batchSize', 'inFlight', 'kvUtilization', 'freeKvBlocks', 'totalKvBlocks', 'activePrefillTokens', 'activeDecodeBlocks', 'cacheHitRate', 'preemptions'],
  optional: [],
};
export const REQUEST_DONE_FIELDS: KnownFields = { required: ['requestId', 'instanceId', 'reason', 'atUs'], optional: ['prefillOnly'] };
export const KV_EVENT_FIELDS: KnownFields = { required: ['instanceId', 'atUs', 'stored', 'removed'], optional: ['cleared'] };

const OUTCOME_REASONS: ReadonlySet<unknown> = new Set(OutcomeReasonSchema.options);

/** True when `LoadSnapshotSchema` would take `value` and return it unchanged. */
export function isExactLoadSnapshot(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  return (
    isSubjectId(value['instanceId']) &&
    isId(value['workerId']) &&
    isIntIn(value['rank'], 0, MAX_RANK) &&
    isFiniteNumber(value['atUs']) &&
    isCount(value['queueDepth']) &&
    isCount(value['batchSize']) &&
    isCount(value['inFlight']) &&
    isShare(value['kvUtilization']) &&
    isIntIn(value['freeKvBlocks'], 0, MAX_KV_BLOCKS) &&
    isIntIn(value['totalKvBlocks'], 1, MAX_KV_BLOCKS) &&
    isCount(value['activePrefillTokens']) &&
    isCount(value['activeDecodeBlocks']) &&
    isShare(value['cacheHitRate']) &&
    isCount(value['preemptions']) &&
    keyCount(value) === LOAD_SNAPSHOT_FIELDS.required.length
  );
}

/** True when `RequestDoneSchema` would take `value` and return it unchanged. */
export function isExactRequestDone(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (!(isId(value['requestId']) && isSubjectId(value['instanceId']) && OUTCOME_REASONS.has(value['reason']) && isFiniteNumber(value['atUs']))) return false;
  let known = REQUEST_DONE_FIELDS.required.length;
  if (value['prefillOnly'] !== undefined) {
    if (value['prefillOnly'] !== true) return false;
    known++;
  }
  return known === keyCount(value);
}

/** True when `KvEventSchema` would take `value` and return it unchanged. */
export function isExactKvEvent(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (!(isSubjectId(value['instanceId']) && isFiniteNumber(value['atUs']) && isBlockIds(value['stored'], MAX_KV_EVENT_BLOCKS) && isBlockIds(value['removed'], MAX_KV_EVENT_BLOCKS))) return false;
  let known = KV_EVENT_FIELDS.required.length;
  if (value['cleared'] !== undefined) {
    if (value['cleared'] !== true) return false;
    known++;
  }
  return known === keyCount(value);
}
