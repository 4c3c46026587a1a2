export * from './bus.js';
export * from './trace-headers.js';
export * from './pipeline.js';
export * from './clock.js';
export * from './wake-up-timers.js';
