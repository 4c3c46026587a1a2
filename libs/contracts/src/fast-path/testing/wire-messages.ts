import fc from 'fast-check';
import { BLOCK_SIZE } from '../../block-hashes.js';
import { MAX_ATTEMPTS } from '../../inference-request.js';
import { OUTCOME_REASON_NAMES, STAGES } from '../../outcomes.js';
import { SloClassSchema } from '../../slo.js';
import { PROTOCOL_ROOT } from '../../subjects.js';
import { MAX_NAME_LENGTH, MAX_REQUEST_TOKENS } from '../../wire-limits.js';
import { epochMicrosArb, finiteArb, idArb, nameArb, nonNegativeArb, shareArb, subjectIdArb, tokenCountArb } from './near-misses.js';

/**
 * Valid messages of every kind that has a fast validator, optional fields present or not, values
 * anywhere in their bounds, each as a receiving edge gets it: sent through JSON (plain objects,
 * `-0` read as 0).
 */
function received<T>(message: T): T {
  return JSON.parse(JSON.stringify(message)) as T;
}

const attemptArb = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: MAX_ATTEMPTS }));
const countArb = fc.oneof(fc.nat(100), fc.nat());

export const stageTimingsArb = fc.record(
  {
    clientSendMs: nonNegativeArb,
    gatewayInMs: nonNegativeArb,
    toAdmissionMs: nonNegativeArb,
    admissionMs: nonNegativeArb,
    toFlowMs: nonNegativeArb,
    flowQueueMs: nonNegativeArb,
    toRouterMs: nonNegativeArb,
    routingMs: nonNegativeArb,
    toWorkerMs: nonNegativeArb,
    workerQueueMs: nonNegativeArb,
    prefillMs: nonNegativeArb,
    decodeMs: nonNegativeArb,
    toGatewayMs: nonNegativeArb,
    sentAtMs: nonNegativeArb,
    sentOn: fc.string({ maxLength: 64 }),
  },
  { requiredKeys: [] },
);

export const inferenceRequestArb = fc
  .record(
    {
      id: subjectIdArb,
      model: nameArb,
      inputTokens: fc.oneof(fc.integer({ min: 0, max: 200 }), tokenCountArb),
      blockIds: fc.array(fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER)), { maxLength: 12 }),
      maxTokens: tokenCountArb,
      bodyBytes: fc.oneof(fc.nat(10_000), fc.constant(2 ** 32)),
      sloClass: fc.constantFrom(...SloClassSchema.options),
      priority: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      fairnessId: fc.string({ maxLength: MAX_NAME_LENGTH }),
      objective: fc.string({ maxLength: MAX_NAME_LENGTH }),
      sloTtftUs: fc.oneof(fc.double({ min: Number.MIN_VALUE, noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 1, max: 10_000_000 })),
      arrivalUs: epochMicrosArb,
      deadlineUs: fc.oneof(epochMicrosArb, finiteArb),
      attempt: attemptArb,
      gatewayId: subjectIdArb,
      timings: stageTimingsArb,
      prefillInstanceId: subjectIdArb,
    },
    { requiredKeys: ['id', 'model', 'inputTokens', 'blockIds', 'maxTokens', 'bodyBytes', 'sloClass', 'priority', 'fairnessId', 'arrivalUs', 'deadlineUs', 'attempt', 'gatewayId', 'timings'] },
  )
  .map(({ blockIds, ...request }) => ({
    ...request,
    blockHashes: blockIds.slice(0, Math.floor(request.inputTokens / BLOCK_SIZE)),
    replyTo: `${PROTOCOL_ROOT}.inbox.${request.gatewayId}.${request.id}`,
  }))
  .map(received);

const generatedArb = fc.integer({ min: 1, max: MAX_REQUEST_TOKENS });

export const tokensFrameArb = fc.record(
  { type: fc.constant('tokens' as const), requestId: idArb, attempt: attemptArb, count: fc.oneof(fc.integer({ min: 1, max: 8 }), generatedArb), generated: generatedArb, atMs: finiteArb, instanceId: idArb },
  { requiredKeys: ['type', 'requestId', 'attempt', 'count', 'atMs', 'instanceId'] },
).map(received);

export const tokensBatchFrameArb = fc.record({ type: fc.constant('tokens-batch' as const), frames: fc.array(tokensFrameArb, { minLength: 1, maxLength: 6 }) }).map(received);

export const endFrameArb = fc.record(
  { type: fc.constant('end' as const), requestId: idArb, attempt: attemptArb, reason: fc.constant('ok' as const), outputTokens: tokenCountArb, cachedTokens: tokenCountArb, instanceId: idArb, timings: stageTimingsArb },
  { requiredKeys: ['type', 'requestId', 'attempt', 'reason', 'outputTokens', 'instanceId', 'timings'] },
).map(received);

export const heldFrameArb = fc.record({ type: fc.constant('held' as const), requestId: idArb, attempt: attemptArb, stage: fc.constantFrom(...STAGES), holder: idArb }).map(received);

/** The rare frames, which always go to zod: the union's validator must refuse them, and zod take them. */
export const errorFrameArb = fc.record({ type: fc.constant('error' as const), requestId: idArb, attempt: attemptArb, stage: fc.constantFrom(...STAGES), reason: fc.constantFrom(...OUTCOME_REASON_NAMES), message: fc.string() }).map(received);

export const loadSnapshotArb = fc.record({
  instanceId: subjectIdArb,
  workerId: idArb,
  rank: fc.integer({ min: 0, max: 65_535 }),
  atUs: epochMicrosArb,
  queueDepth: countArb,
  batchSize: countArb,
  inFlight: countArb,
  kvUtilization: shareArb,
  freeKvBlocks: fc.integer({ min: 0, max: 2 ** 31 }),
  totalKvBlocks: fc.integer({ min: 1, max: 2 ** 31 }),
  activePrefillTokens: countArb,
  activeDecodeBlocks: countArb,
  cacheHitRate: shareArb,
  preemptions: countArb,
}).map(received);

export const requestDoneArb = fc.record(
  { requestId: idArb, instanceId: subjectIdArb, reason: fc.constantFrom(...OUTCOME_REASON_NAMES), atUs: fc.oneof(epochMicrosArb, finiteArb), prefillOnly: fc.constant(true as const) },
  { requiredKeys: ['requestId', 'instanceId', 'reason', 'atUs'] },
).map(received);

const blockIdsArb = fc.array(fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER)), { maxLength: 8 });

export const kvEventArb = fc
  .record({ instanceId: subjectIdArb, atUs: fc.oneof(epochMicrosArb, finiteArb), stored: blockIdsArb, removed: blockIdsArb, cleared: fc.constant(true as const) }, { requiredKeys: ['instanceId', 'atUs', 'stored', 'removed'] })
  .map(received);
