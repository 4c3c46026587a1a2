export * from './spec.js';
export * from './math.js';
export * from './generate.js';
