import { NodeSDK } from '@opentelemetry/sdk-node';
import { envDetector, hostDetector, osDetector, processDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { trace, type Tracer } from '@opentelemetry/api';

/** `service.instance.id` (incubating semantic convention, so spelt here rather than imported). */
export const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id';

export interface TelemetryHandle {
  readonly tracer: Tracer;
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing for one service. Configuration is the standard OTEL_* variables
 * (endpoint, protocol, sampler, resource attributes). sluice's own choices, only where the user
 * set nothing: no exporter unless an OTLP endpoint is given (so a laptop run does not log export
 * errors), and no OTel metrics or logs (metrics are Prometheus, scraped from /metrics).
 */
export function startTracing(serviceName: string, instanceId: string, env: NodeJS.ProcessEnv = process.env): TelemetryHandle {
  const endpointSet = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  env.OTEL_TRACES_EXPORTER ??= endpointSet ? 'otlp' : 'none';
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';

  const sdk = new NodeSDK({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? serviceName,
      [ATTR_SERVICE_VERSION]: '0.1.0',
      [ATTR_SERVICE_INSTANCE_ID]: instanceId,
    }),
    // The SDK's default detectors include one that sets service.instance.id to a random UUID,
    // and detected attributes override ours: without it, spans carry the id the metrics'
    // instance_id label has. OTEL_NODE_RESOURCE_DETECTORS, when set, still chooses.
    ...(env.OTEL_NODE_RESOURCE_DETECTORS ? {} : { resourceDetectors: [processDetector, hostDetector, osDetector, envDetector] }),
  });
  sdk.start();
  return {
    tracer: trace.getTracer('sluice', '0.1.0'),
    shutdown: () => sdk.shutdown(),
  };
}
