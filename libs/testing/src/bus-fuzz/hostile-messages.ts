import { PROTOCOL_ROOT, SERVICES, subjects } from '@sluice/contracts';
import fc from 'fast-check';
import type { ClusterIds } from './subscriptions.js';

/**
 * Messages anyone on an open bus could publish onto the subjects sluice's services listen on
 * (docs/security.md, "Hostile bus messages"), as fast-check arbitraries: valid ones with forged ids,
 * near-valid ones (one field wrong), garbage, large ones, and subjects that only look like sluice's.
 * Valid messages never name a real request (their ids are fresh) and never claim a real instance's
 * lifecycle, so they show what forged ids do to the books, not what an identity may do (that is
 * the bus permissions' job).
 */
export interface HostileMessage {
  readonly subject: string;
  readonly payload: Uint8Array;
  readonly headers?: readonly (readonly [string, string])[];
  readonly kind: 'valid' | 'near-valid' | 'garbage' | 'large' | 'stray-subject';
}

const text = new TextEncoder();
const json = (value: unknown): Uint8Array => text.encode(JSON.stringify(value));

/** Fresh ids: a request, an instance or a process nobody runs. */
const freshId = (prefix: string) => fc.stringMatching(/^[a-z0-9]{6,12}$/).map((s) => `${prefix}-${s}`);
const fakeInstance = fc.integer({ min: 0, max: 50 }).map((n) => `fuzz-w${n}-r0`);

/** A field of a valid message replaced by something its schema refuses (or, now and then, does not). */
const badValue = fc.oneof(
  fc.constant(null),
  fc.constant(-1),
  fc.constant(1e12),
  fc.constant('a.b'),
  fc.constant('*'),
  fc.constant('>'),
  fc.constant(''),
  fc.constant('x'.repeat(300)),
  fc.constant([]),
  fc.constant({}),
  fc.constant(true),
  fc.constant(Number.MAX_SAFE_INTEGER * 4),
);

/** One field of `valid` set to a bad value, or removed; `1e400` (JSON's Infinity) written in by hand. */
function nearValid(valid: Record<string, unknown>): fc.Arbitrary<Uint8Array> {
  const keys = Object.keys(valid);
  // An empty object (`discover`, the `get` verbs) has no field to spoil: the wrong kind of JSON instead.
  if (keys.length === 0) return fc.constantFrom('[]', '"{}"', '0', 'null').map((s) => text.encode(s));
  return fc.record({ key: fc.constantFrom(...keys), how: fc.constantFrom('bad', 'missing', 'infinite'), value: badValue }).map(({ key, how, value }) => {
    const copy: Record<string, unknown> = { ...valid };
    if (how === 'missing') delete copy[key];
    else if (how === 'bad') copy[key] = value;
    else return text.encode(JSON.stringify({ ...copy, [key]: 0 }).replace(`"${key}":0`, `"${key}":1e400`));
    return json(copy);
  });
}

function request(ids: ClusterIds, nowMs: number) {
  return fc.record({ id: freshId('fuzz'), ownGateway: fc.boolean(), blocks: fc.integer({ min: 0, max: 4 }), fairness: fc.integer({ min: 0, max: 5_000 }), priority: fc.constantFrom(-1, 0, 3, 4) }).map(({ id, ownGateway, blocks, fairness, priority }) => {
    const gatewayId = ownGateway ? ids.gatewayId : 'gw-fuzz';
    return {
      id,
      model: 'qwen3-14b',
      inputTokens: 16 * blocks + 3,
      blockHashes: Array.from({ length: blocks }, (_, i) => 1_000 + i),
      maxTokens: 1,
      sloClass: 'standard',
      priority,
      fairnessId: `fuzz-tenant-${fairness}`,
      arrivalUs: nowMs * 1_000,
      deadlineUs: (nowMs + 60_000) * 1_000,
      attempt: 0,
      gatewayId,
      replyTo: `${PROTOCOL_ROOT}.inbox.${gatewayId}.${id}`,
    };
  });
}

const identity = (instanceId: string) => ({ instanceId, workerId: instanceId.replace(/-r0$/, ''), rank: 0, model: 'qwen3-14b', totalKvBlocks: 1_000 });

/** A valid payload for a subject, with the subject it goes on. */
function validOn(ids: ClusterIds, nowMs: number): fc.Arbitrary<{ subject: string; value: Record<string, unknown>; changesState?: boolean }> {
  const anyInstance = fc.oneof(fakeInstance, fc.constantFrom(...ids.instanceIds));
  const atUs = nowMs * 1_000;
  return fc.oneof(
    request(ids, nowMs).chain((r) => fc.constantFrom(subjects.admissionSubmit(), subjects.flowSubmit(), subjects.routerSubmit(), ...ids.instanceIds.map((i) => subjects.workerSubmit(i))).map((subject) => ({ subject, value: r }))),
    fc.record({ requestId: freshId('fuzz'), reason: fc.constantFrom('client_disconnected', 'timeout', 'ended', 'superseded') }).map((value) => ({ subject: subjects.requestCancel(), value })),
    fc.record({ id: fakeInstance, type: fc.constantFrom('register', 'heartbeat', 'drain', 'deregister') }).map(({ id, type }) => ({ subject: subjects.workerLifecycle(id), value: { ...identity(id), type, atUs } })),
    fc.record({ id: anyInstance, queueDepth: fc.nat(50) }).map(({ id, queueDepth }) => ({
      subject: subjects.workerLoad(id),
      value: { ...identity(id), atUs, queueDepth, batchSize: 0, inFlight: 0, kvUtilization: 0.1, freeKvBlocks: 900, activePrefillTokens: 0, activeDecodeBlocks: 0, cacheHitRate: 0, preemptions: 0 },
    })),
    fc.record({ id: anyInstance, stored: fc.array(fc.nat(), { maxLength: 20 }) }).map(({ id, stored }) => ({ subject: subjects.workerKv(id), value: { instanceId: id, atUs, stored, removed: [] } })),
    fc.record({ id: anyInstance, requestId: freshId('fuzz') }).map(({ id, requestId }) => ({ subject: subjects.workerDone(id), value: { requestId, instanceId: id, reason: 'ok', atUs } })),
    fc.constant({ subject: subjects.workerDiscover(), value: {} }),
    fc.record({ service: fc.constantFrom(...SERVICES), processId: freshId('fuzz'), type: fc.constantFrom('up', 'heartbeat', 'down') }).map(({ service, processId, type }) => ({
      subject: subjects.servicePresence(service, processId),
      value: { service, processId, type, atUs },
    })),
    fc.record({ requestId: freshId('fuzz'), frame: fc.constantFrom('tokens', 'end', 'error', 'held', 'migrate') }).map(({ requestId, frame }) => ({ subject: subjects.inbox(ids.gatewayId, requestId), value: inboxFrame(frame, requestId) })),
    fc.array(freshId('fuzz'), { minLength: 2, maxLength: 20 }).map((requestIds) => ({ subject: subjects.inboxTokens(ids.gatewayId), value: { type: 'tokens-batch', frames: requestIds.map((r) => inboxFrame('tokens', r)) } })),
    fc.constantFrom(subjects.control('admission', 'get'), subjects.control('admission', 'get-busy-threshold'), subjects.busFaults('get')).map((subject) => ({ subject, value: {} })),
    fc.constant({ subject: subjects.control('worker', 'get-faults'), value: { instanceId: 'fuzz-nobody' } }),
    // State-changing verbs: a valid shape to start from; only refused mutations of it are sent.
    fc.constant({ subject: subjects.control('admission', 'set'), value: { policy: 'reject-all' }, changesState: true }),
    fc.constant({ subject: subjects.control('admission', 'set-busy-threshold'), value: { model: 'qwen3-14b', active_decode_blocks_threshold: 0.1 }, changesState: true }),
    fc.constant({ subject: subjects.control('worker', 'set-faults'), value: { faults: { hang: true } }, changesState: true }),
    fc.constant({ subject: subjects.busFaults('set'), value: { subject: '>', dropPercent: 100 }, changesState: true }),
  );
}

function inboxFrame(type: string, requestId: string): Record<string, unknown> {
  switch (type) {
    case 'tokens':
      return { type, requestId, attempt: 0, count: 1, generated: 1, atMs: 1, instanceId: 'fuzz-w0-r0' };
    case 'end':
      return { type, requestId, attempt: 0, reason: 'ok', outputTokens: 1, instanceId: 'fuzz-w0-r0', timings: {} };
    case 'error':
      return { type, requestId, attempt: 0, stage: 'router', reason: 'no_worker', message: 'forged' };
    case 'held':
      return { type, requestId, attempt: 0, stage: 'router', holder: 'fuzz-holder' };
    default:
      return { type: 'migrate', requestId, attempt: 0, holder: 'fuzz-holder', reason: 'worker_lost', resumeAt: 'router' };
  }
}

/** Large payloads, built from a size so fast-check does not have to generate megabytes. */
function large(ids: ClusterIds, nowMs: number): fc.Arbitrary<HostileMessage> {
  return fc.record({ shape: fc.constantFrom('tokens-batch', 'block-hashes', 'kv', 'padding'), n: fc.integer({ min: 2_000, max: 60_000 }) }).chain(({ shape, n }) => {
    switch (shape) {
      case 'tokens-batch':
        return fc.constant(msg(subjects.inboxTokens(ids.gatewayId), { type: 'tokens-batch', frames: Array.from({ length: Math.min(n, 5_000) }, (_, i) => inboxFrame('tokens', `fuzz-big-${i}`)) }));
      case 'block-hashes':
        return request(ids, nowMs).map((r) => msg(subjects.routerSubmit(), { ...r, blockHashes: Array.from({ length: n }, (_, i) => i) }));
      case 'kv':
        return fc.constant(msg(subjects.workerKv(ids.instanceIds[0]!), { instanceId: ids.instanceIds[0], atUs: nowMs * 1_000, stored: Array.from({ length: n + 65_536 }, (_, i) => i % 10), removed: [] }));
      case 'padding':
        return fc.constant(msg(subjects.flowSubmit(), { padding: 'x'.repeat(n * 10) }));
    }
  });
  function msg(subject: string, value: unknown): HostileMessage {
    return { subject, payload: json(value), kind: 'large' };
  }
}

const garbagePayload = fc.oneof(
  fc.uint8Array({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map(json),
  fc.constantFrom('', 'null', '[]', '{}', '"', '{"type":', 'NaN', '1e400', '['.repeat(5_000) + ']'.repeat(5_000)).map((s) => text.encode(s)),
);

/** A subject of sluice's shape with made-up tokens, or of another protocol version. */
function straySubject(ids: ClusterIds): fc.Arbitrary<string> {
  return fc.oneof(
    freshId('x').map((t) => `${PROTOCOL_ROOT}.worker.${t}.done`),
    freshId('x').map((t) => `${PROTOCOL_ROOT}.worker.${t}.lifecycle`),
    freshId('x').map((t) => `${PROTOCOL_ROOT}.inbox.${ids.gatewayId}.${t}`),
    fc.constantFrom('sluice.v2.flow.submit', 'sluice.v0.admission.submit', 'sluice.v2.worker.discover', `${PROTOCOL_ROOT}.control.router.get`),
  );
}

const hostileHeaders = fc.option(
  fc.constantFrom<readonly (readonly [string, string])[]>([['traceparent', 'garbage']], [['traceparent', '00-zzzz-zzzz-01']], [['sluice-attempt', 'x'], ['sluice-request-id', '*']]),
  { nil: undefined },
);

/** One hostile message for a running cluster; `nowMs` dates the valid ones (their deadlines are a minute out). */
export function hostileMessage(ids: ClusterIds, nowMs: number): fc.Arbitrary<HostileMessage> {
  const valid = validOn(ids, nowMs);
  const withHeaders = (m: fc.Arbitrary<Omit<HostileMessage, 'headers'>>) => fc.tuple(m, hostileHeaders).map(([message, headers]) => (headers ? { ...message, headers } : message));
  return withHeaders(
    fc.oneof(
      { weight: 25, arbitrary: valid.filter((v) => !v.changesState).map((v) => ({ subject: v.subject, payload: json(v.value), kind: 'valid' as const })) },
      { weight: 40, arbitrary: valid.chain((v) => nearValid(v.value).map((payload) => ({ subject: v.subject, payload, kind: 'near-valid' as const }))) },
      { weight: 25, arbitrary: fc.tuple(valid, garbagePayload).map(([v, payload]) => ({ subject: v.subject, payload, kind: 'garbage' as const })) },
      { weight: 1, arbitrary: large(ids, nowMs) },
      { weight: 9, arbitrary: fc.tuple(straySubject(ids), fc.oneof(garbagePayload, valid.map((v) => json(v.value)))).map(([subject, payload]) => ({ subject, payload, kind: 'stray-subject' as const })) },
    ),
  );
}
