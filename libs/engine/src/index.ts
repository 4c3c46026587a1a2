export * from './engine.types.js';
export * from './fixed-step.engine.js';
