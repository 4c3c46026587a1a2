// The chaos faults: one folder per fault, the ports their actions run on, the registry.
export * from './fault-definition.js';
export * from './fault-registry.js';
export * from './fault-runs.js';
export * from './built-in-faults.js';
export * from './live-ports.js';
export * from './twin-port.js';
export { ProcessTargetSchema, processName, type ProcessTarget } from './process-target.js';
