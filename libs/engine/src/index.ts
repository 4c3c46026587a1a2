export * from './engine.types.js';
export { VllmEngine, DuplicateRequestError, type VllmEngineOptions } from './vllm.engine.js';
export type { LatencyModel } from './latency/latency-model.js';
export { BLACKBOX, createBlackboxModel, type BlackboxCoefficients } from './latency/blackbox.model.js';
export { LATENCY_MODEL_NAMES, createLatencyModel, UnknownLatencyModelError, type LatencyModelName } from './latency/latency-model.registry.js';
export { LatencyProfileSchema, type LatencyProfile, type LatencyProfileInput } from './profile.js';
export { KvCache, KvInvariantError, type KvEvents } from './kv/kv-cache.js';
export { INSTANCE_SCHEDULER_NAMES, createInstanceScheduler, UnknownSchedulerError, type InstanceScheduler, type InstanceSchedulerName } from './scheduling/instance-scheduler.js';
export { whyUnservable, type ServingLimits, type Unservable } from './unservable.js';
