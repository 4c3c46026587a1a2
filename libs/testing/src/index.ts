export * from './nats-server.js';
export * from './local-cluster.js';
export * from './containers.js';
export { canConnect, natsAnswers, freePort, freePorts, connectHost, urlHostPort } from './net.js';
export { docker, dockerAvailable as dockerCliAvailable, type DockerResult } from './docker.js';
export * from './repo-root.js';
export * from './otlp-receiver.js';
export * from './probes.js';
export * from './sluice-cli.js';
