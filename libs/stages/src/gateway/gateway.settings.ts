import { micros, microsFromMillis, millisFromMicros, type Micros, type OutcomeReason } from '@sluice/contracts';
import { handoffWindowUs } from './migration-rules.js';

/** The keys of the config's `gateway` section the core reads (a parsed sluice.yaml fits). */
export interface GatewayConfig {
  readonly requestTimeoutMs: number;
  readonly heartbeatTimeoutMs: number;
  readonly migrationLimit: number;
  readonly limits: { readonly maxStreamDurationMs: number };
}

export interface GatewaySettings {
  /** A request with no answer this long after its arrival ends with 504 `timeout`; infinite: never. */
  readonly requestTimeoutUs: Micros;
  /** A stream still open this long after its arrival ends with `stream_too_long`; 0: no such cap. */
  readonly maxStreamDurationUs: Micros;
  /** A holder (a stage process, a worker instance) silent this long has lost what it held; infinite: never judged. */
  readonly heartbeatTimeoutUs: Micros;
  /** Re-submissions allowed per request (0 = none). */
  readonly migrationLimit: number;
  /** How long the gateway keeps trying a stage that does not ack one of its handoffs (`handoffWindowUs`). */
  readonly resubmitWindowUs: Micros;
}

/**
 * Settings from the config's `gateway` section and the bus's ack timeout (`nats.ackTimeoutMs`): the
 * one ms → µs conversion.
 */
export function gatewaySettingsFrom(config: GatewayConfig, ackTimeoutMs: number): GatewaySettings {
  const heartbeatTimeoutUs = microsFromMillis(config.heartbeatTimeoutMs);
  return {
    requestTimeoutUs: microsFromMillis(config.requestTimeoutMs),
    maxStreamDurationUs: microsFromMillis(config.limits.maxStreamDurationMs),
    heartbeatTimeoutUs,
    migrationLimit: config.migrationLimit,
    resubmitWindowUs: handoffWindowUs(heartbeatTimeoutUs, microsFromMillis(ackTimeoutMs)),
  };
}

/** When the gateway gives up on a request, and what it answers then. */
export interface Deadline {
  readonly atUs: Micros;
  readonly reason: Extract<OutcomeReason, 'timeout' | 'stream_too_long'>;
  readonly message: string;
}

/**
 * A request's deadline: its arrival plus the request timeout, or for a stream the shorter
 * `gateway.limits.maxStreamDurationMs`. It travels on the wire as the request's `deadlineUs`, so
 * every stage gives up on the request when the gateway does.
 */
export function deadlineOf(settings: GatewaySettings, arrivalUs: Micros, stream: boolean): Deadline {
  const { requestTimeoutUs, maxStreamDurationUs } = settings;
  if (stream && maxStreamDurationUs > 0 && maxStreamDurationUs < requestTimeoutUs) {
    const limitMs = millisFromMicros(maxStreamDurationUs);
    return { atUs: micros(arrivalUs + maxStreamDurationUs), reason: 'stream_too_long', message: `the stream was open longer than ${limitMs} ms (gateway.limits.maxStreamDurationMs)` };
  }
  return { atUs: micros(arrivalUs + requestTimeoutUs), reason: 'timeout', message: `no answer within ${millisFromMicros(requestTimeoutUs)} ms` };
}
