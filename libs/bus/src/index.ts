export * from './bus.js';
export * from './trace-headers.js';
export * from './nest/bus.transport.js';
export * from './nest/service-context.js';
export * from './nest/service-bootstrap.js';
export * from './pipeline.js';
export * from './nest/run-service.js';
export * from './nest/worker-event-routes.js';
