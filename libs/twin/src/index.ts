export * from './block-ids.js';
export * from './hops.js';
export * from './hop-profile.js';
export * from './event-queue.js';
export * from './twin.js';
export type { TwinEngineCounters } from './engine-counters.js';
export * from './chaos/chaos-report.js';
export { decisionTraceObserver } from './decision-trace-observer.js';
