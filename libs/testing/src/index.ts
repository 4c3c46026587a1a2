export * from './containers.js';
export * from './otlp-receiver.js';
export * from './traced-cluster.js';
export * from './probes.js';
export * from './sluice-cli.js';
export * from './telemetry-doc.js';
export * from './completions.js';
export * from './stream-completion.js';
