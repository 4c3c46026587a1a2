export * from './bus.transport.js';
export * from './service-context.js';
export * from './service-bootstrap.js';
export * from './run-service.js';
export * from './worker-event-routes.js';
export * from './request-intake.js';
