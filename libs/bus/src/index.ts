export * from './bus.js';
export * from './trace-headers.js';
export * from './pipeline.js';
export * from './clock.js';
export * from './hop-clock.js';
export * from './wake-up-timers.js';
export { BusFaultRules, type FaultDecision } from './faults/bus-fault-rules.js';
export { describeBusFaultRule } from './faults/bus-fault-injector.js';
export * from './silence-during-outage.js';
