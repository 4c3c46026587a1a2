import { outcomeOf, type OutcomeReason } from '@sluice/contracts';
import { SpanStatusCode, traceExemplarOf, type Span } from '@sluice/telemetry';
import type { ApiKey } from './api-keys.js';
import { eppErrorCodeOf, type GatewayMetrics, type ObjectiveSeries } from './gateway.metrics.js';

/** What a request cost, for its API key's counters. */
export interface RequestUsage {
  readonly key: ApiKey | undefined;
  readonly promptTokens: number;
  readonly outputTokens: number;
}

/** The Endpoint Picker's view of a request: its objective's series, whether it got past the door, whether it streamed, the answer's size. */
export interface ObjectiveUsage {
  readonly series: ObjectiveSeries;
  readonly taken: boolean;
  readonly streaming: boolean;
  readonly responseBytes: number;
}

/**
 * Counts a request's one terminal outcome, wherever it ended (at the door or after the core
 * settled it): `sluice_requests_total{outcome,reason}`, its duration (with its trace as exemplar), the Endpoint Picker's
 * objective metrics, its API key's counters, and its span's status and end.
 */
export function recordTerminalOutcome(metrics: GatewayMetrics, span: Span, arrivalMs: number, reason: OutcomeReason, status: number, usage: RequestUsage, epp: ObjectiveUsage): void {
  const outcome = outcomeOf(reason);
  const seconds = (Date.now() - arrivalMs) / 1000;
  metrics.terminal.inc({ outcome, reason });
  metrics.inFlight.dec();
  metrics.duration.observe({ outcome }, seconds, traceExemplarOf(span));
  recordObjective(epp, reason, status, seconds, usage.outputTokens);
  if (usage.key !== undefined) {
    const keyId = usage.key.id;
    metrics.apiKeyRequests.inc({ key_id: keyId, outcome });
    if (usage.promptTokens > 0) metrics.apiKeyTokens.inc({ key_id: keyId, kind: 'prompt' }, usage.promptTokens);
    if (usage.outputTokens > 0) metrics.apiKeyTokens.inc({ key_id: keyId, kind: 'completion' }, usage.outputTokens);
  }
  span.setAttributes({
    'http.response.status_code': status,
    'sluice.outcome': outcome,
    'sluice.outcome.reason': reason,
    'gen_ai.usage.output_tokens': usage.outputTokens,
  });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
  span.end();
}

/** The Endpoint Picker's objective metrics of a request at its terminal outcome; answer sizes and times of completed ones. */
function recordObjective(epp: ObjectiveUsage, reason: OutcomeReason, status: number, seconds: number, outputTokens: number): void {
  const { series } = epp;
  series.total.inc();
  const code = eppErrorCodeOf(reason, status);
  if (code !== '') series.error(code).inc();
  if (!epp.taken) return;
  series.running.dec();
  if (reason !== 'ok') return;
  series.duration.observe(seconds);
  series.responseBytes.observe(epp.responseBytes);
  series.outputTokens.observe(outputTokens);
  if (outputTokens > 0) series.ntpot.observe(seconds / outputTokens);
  if (!epp.streaming) series.ttft.observe(seconds);
}
