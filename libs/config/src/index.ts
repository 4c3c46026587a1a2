export * from './config.schema.js';
export * from './config.error.js';
export * from './command-line.js';
export * from './load-config.js';
export * from './load-config-or-exit.js';
export * from './profiles.js';
export * from './nats-credentials.js';
export { DEFAULT_JAEGER_URL } from './tracing.schema.js';
