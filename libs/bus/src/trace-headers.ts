import { context, propagation, type Context } from '@opentelemetry/api';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';

/**
 * W3C trace context across a NATS hop: the active context is written into the message headers
 * (traceparent, tracestate) on send and read back on receipt, with whatever propagator the
 * OpenTelemetry SDK installed (W3C by default, or OTEL_PROPAGATORS).
 */
export function injectTraceContext(into: MsgHdrs = natsHeaders(), ctx: Context = context.active()): MsgHdrs {
  propagation.inject(ctx, into, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
  return into;
}

/**
 * The trace context as headers of their own, or none when there is nothing to propagate (tracing
 * off): a frame or event without headers is sent as a plain `PUB`, and its receiver parses none.
 */
export function traceHeaders(ctx: Context = context.active()): MsgHdrs | undefined {
  let headers: MsgHdrs | undefined;
  propagation.inject(ctx, undefined, {
    set: (_carrier, key, value) => (headers ??= natsHeaders()).set(key, value),
  });
  return headers;
}

export function extractTraceContext(from: MsgHdrs | undefined): Context {
  if (!from) return context.active();
  return propagation.extract(context.active(), from, {
    get: (carrier, key) => (carrier.has(key) ? carrier.get(key) : undefined),
    keys: (carrier) => carrier.keys(),
  });
}
