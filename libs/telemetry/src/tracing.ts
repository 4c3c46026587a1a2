import { trace, type Tracer } from '@opentelemetry/api';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

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
 *
 * With nothing to export, no SDK is started at all: its tracer would record spans nobody reads,
 * and loading `@opentelemetry/sdk-node` (every exporter it can choose from) is ~0.4 s of each
 * service's start. Spans are then the API's no-ops, and no trace context travels between services.
 */
export async function startTracing(serviceName: string, instanceId: string, env: NodeJS.ProcessEnv = process.env): Promise<TelemetryHandle> {
  const endpointSet = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  env.OTEL_TRACES_EXPORTER ??= endpointSet ? 'otlp' : 'none';
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const tracer = trace.getTracer('sluice', '0.1.0');
  if (env.OTEL_TRACES_EXPORTER.split(',').every((exporter) => exporter.trim() === 'none')) return { tracer, shutdown: async () => undefined };

  const [{ NodeSDK }, { envDetector, hostDetector, osDetector, processDetector, resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/resources'),
  ]);
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
  return { tracer, shutdown: () => sdk.shutdown() };
}
