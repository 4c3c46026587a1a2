export * from './spec.js';
export * from './math.js';
export * from './generate.js';
export * from './trace-v2.js';
