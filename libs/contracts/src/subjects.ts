/**
 * Every NATS subject sluice uses, built here and nowhere else. Versioned under `sluice.v1` so a
 * future protocol can run beside this one on the same bus.
 */
export const PROTOCOL_ROOT = 'sluice.v1';

/** A subject token must not contain separators or wildcards, or one id could address many. */
const TOKEN = /^[A-Za-z0-9_-]+$/;

/** Whether `value` can stand as one token of a subject (what `subjects` builds from an id). */
export function isSubjectToken(value: string): boolean {
  return TOKEN.test(value);
}

function token(kind: string, value: string): string {
  if (!TOKEN.test(value)) {
    throw new Error(`${kind} "${value}" is not a valid subject token: use letters, digits, "_" or "-"`);
  }
  return value;
}

/** Services that answer on control subjects. */
export const SERVICES = ['gateway', 'admission', 'flow-controller', 'router', 'worker', 'autoscaler'] as const;
export type ServiceName = (typeof SERVICES)[number];

/**
 * The verbs each service answers on its control subjects (request/reply). A verb not listed here
 * does not type-check, so a typo cannot create a subject nobody serves.
 */
export const CONTROL_VERBS = {
  gateway: [],
  admission: ['get', 'set', 'get-busy-threshold', 'set-busy-threshold'],
  'flow-controller': [],
  router: [],
  worker: ['get-faults', 'set-faults', 'set-instances'],
  autoscaler: [],
} as const satisfies Record<ServiceName, readonly string[]>;
export type ControlVerb<S extends ServiceName> = (typeof CONTROL_VERBS)[S][number];

export const subjects = {
  /** gateway → admission (queue group): a request enters the pipeline. */
  admissionSubmit: () => `${PROTOCOL_ROOT}.admission.submit`,
  /** admission → every router and admission replica: the busy thresholds in effect (event). */
  busyThresholds: () => `${PROTOCOL_ROOT}.admission.busy-thresholds`,
  /** admission → flow-controller (queue group). */
  flowSubmit: () => `${PROTOCOL_ROOT}.flow.submit`,
  /** flow-controller → router (queue group). */
  routerSubmit: () => `${PROTOCOL_ROOT}.router.submit`,
  /** router → one worker instance. */
  workerSubmit: (instanceId: string) => `${PROTOCOL_ROOT}.worker.${token('instance id', instanceId)}.submit`,
  /** decode instance → prefill instance (disaggregated prefill/decode): a prompt to prefill. */
  workerPrefill: (instanceId: string) => `${PROTOCOL_ROOT}.worker.${token('instance id', instanceId)}.prefill`,
  /** prefill instance → the decode instance that asked: the prompt is prefilled, its KV blocks ready to pull. */
  workerPrefilled: (instanceId: string) => `${PROTOCOL_ROOT}.worker.${token('instance id', instanceId)}.prefilled`,
  /** any stage → the gateway that owns the request: frames for one request. */
  inbox: (gatewayId: string, requestId: string) =>
    `${PROTOCOL_ROOT}.inbox.${token('gateway id', gatewayId)}.${token('request id', requestId)}`,
  /**
   * worker → gateway: tokens frames of many of its requests in one message. `_tokens` cannot be a
   * request id (the gateway makes those: `cmpl-…`, `chatcmpl-…`).
   */
  inboxTokens: (gatewayId: string) => `${PROTOCOL_ROOT}.inbox.${token('gateway id', gatewayId)}._tokens`,
  /** What a gateway subscribes to: the frames of all the requests it owns. */
  inboxOfGateway: (gatewayId: string) => `${PROTOCOL_ROOT}.inbox.${token('gateway id', gatewayId)}.>`,
  /** flow-controller → admission: what one flow-controller process holds queued, by model and band. */
  flowQueue: (processId: string) => `${PROTOCOL_ROOT}.flow.${token('process id', processId)}.queue`,
  /** gateway → flow-controller, workers: a request is cancelled (client disconnect). */
  requestCancel: () => `${PROTOCOL_ROOT}.request.cancel`,
  /** instance → admission, flow-controller, router: load snapshot. */
  workerLoad: (instanceId: string) => `${PROTOCOL_ROOT}.worker.${token('instance id', instanceId)}.load`,
  /** instance → admission (its prefix index) and router (its KV-event index, when its policy reads it): KV blocks stored / removed. */
  workerKv: (instanceId: string) => `${PROTOCOL_ROOT}.worker.${token('instance id', instanceId)}.kv`,
  /** instance → all: register, heartbeat, drain, deregister. */
  workerLifecycle: (instanceId: string) =>
    `${PROTOCOL_ROOT}.worker.${token('instance id', instanceId)}.lifecycle`,
  /**
   * any → every worker: "announce yourselves". A service that follows lifecycle events asks once
   * its subscriptions are up, so it learns instances that registered before it started.
   */
  workerDiscover: () => `${PROTOCOL_ROOT}.worker.discover`,
  /** instance → router, flow-controller: a request left the instance (in-flight accounting). */
  workerDone: (instanceId: string) => `${PROTOCOL_ROOT}.worker.${token('instance id', instanceId)}.done`,
  /**
   * every service process → gateways: "this process is alive" (up, heartbeat, down). A request's
   * holder that goes silent is lost, and the gateway re-submits what it held.
   */
  servicePresence: (service: ServiceName, processId: string) =>
    `${PROTOCOL_ROOT}.service.${token('service', service)}.${token('process id', processId)}.presence`,
  /** cli → every process: get/set/clear bus faults (delay, drop, duplicate) on subject patterns. */
  busFaults: (verb: 'get' | 'set' | 'clear') => `${PROTOCOL_ROOT}.control.bus.${token('verb', verb)}`,
  /** request/reply to one service: get/set config, faults. */
  control: <S extends ServiceName>(service: S, verb: ControlVerb<S>) =>
    `${PROTOCOL_ROOT}.control.${token('service', service)}.${token('verb', verb)}`,
} as const;

/** Wildcards for listeners that follow every instance. */
export const subjectPatterns = {
  allWorkerLoad: `${PROTOCOL_ROOT}.worker.*.load`,
  allWorkerKv: `${PROTOCOL_ROOT}.worker.*.kv`,
  allWorkerLifecycle: `${PROTOCOL_ROOT}.worker.*.lifecycle`,
  allWorkerDone: `${PROTOCOL_ROOT}.worker.*.done`,
  /** Every flow-controller process's queue report. */
  allFlowQueues: `${PROTOCOL_ROOT}.flow.*.queue`,
  allServicePresence: `${PROTOCOL_ROOT}.service.*.*.presence`,
  /** One stage's processes: the replicas that share its queue group (admission splits its budget by their number). */
  admissionPresence: `${PROTOCOL_ROOT}.service.admission.*.presence`,
  /** Every worker process's presence: the autoscaler counts the processes it can size. */
  workerPresence: `${PROTOCOL_ROOT}.service.worker.*.presence`,
  /** Every gateway's batched tokens frames (an observer's view; each gateway gets its own under `inboxOfGateway`). */
  allInboxTokens: `${PROTOCOL_ROOT}.inbox.*._tokens`,
} as const;

/** Queue groups: stateless services scale out by joining the same group. */
export const queueGroups = {
  admission: 'sluice-admission',
  flowController: 'sluice-flow-controller',
  router: 'sluice-router',
} as const;

/** The instance id carried in a per-instance subject (`sluice.v1.worker.<id>.<kind>`). */
export function instanceIdOf(subject: string): string | undefined {
  const parts = subject.split('.');
  return parts.length === 5 && parts[2] === 'worker' ? parts[3] : undefined;
}
