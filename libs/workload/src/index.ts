export * from './spec.js';
export * from './math.js';
export * from './generate.js';
export * from './token-ids.js';
export * from './trace-v2.js';
export * from './trace-v2-observed.js';
export * from './chaos/scenario.js';
export * from './chaos/faults/index.js';
