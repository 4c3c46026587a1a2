import { z } from 'zod';

/** Where a trace id becomes a link: Jaeger's UI serves a trace at `{jaegerUrl}/trace/{traceId}`. */
export const DEFAULT_JAEGER_URL = 'http://localhost:16686';

/**
 * `tracing`: what sluice's own tools need to know about the trace store. Spans themselves are
 * exported by the standard `OTEL_*` variables (docs/telemetry.md), not by keys here.
 */
export const TracingSchema = z.strictObject({
  /**
   * The Jaeger UI the run report links each slow request's trace to (report.html, "Slowest
   * requests"). An http(s) URL; a trailing slash is dropped.
   */
  jaegerUrl: z
    .url({ protocol: /^https?$/, error: 'an http:// or https:// URL' })
    .transform((url) => url.replace(/\/+$/, ''))
    .default(DEFAULT_JAEGER_URL),
});
