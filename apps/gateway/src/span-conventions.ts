import type { IncomingMessage } from 'node:http';
import { GEN_AI_PROVIDER, type Attributes } from '@sluice/telemetry';
import type { ApiKind } from '@sluice/openai';

/*
 * The gateway's SERVER span in the OpenTelemetry HTTP server conventions (open-telemetry/semantic-conventions
 * v1.45.0, docs/http/http-spans.md: `http.request.method`, `url.path`, `url.scheme` required;
 * `server.address`/`server.port` recommended, from the Host header) and the GenAI inference
 * conventions (semantic-conventions-genai v0.1.0: `gen_ai.operation.name` and
 * `gen_ai.provider.name` required; the request model, the response's id, model and finish
 * reasons, and the token usage where known).
 */

/** `host`, `host:port`, `[v6]` or `[v6]:port` of a Host header. */
const HOST_HEADER = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/;

/**
 * The last Host header read and what it gave: a gateway's clients nearly always name it alike, and
 * the two regular expressions were about 1% of its busy time at 1,000 requests/s.
 */
let lastHost: { readonly header: string; readonly attributes?: Attributes } = { header: '' };

/**
 * `server.address` and `server.port` as the client addressed the server (the Host header), else
 * the socket's local address and port: the conventions' order of sources for an HTTP server span.
 */
export function serverAddressOf(req: Pick<IncomingMessage, 'headers' | 'socket'>): Attributes {
  const host = req.headers.host ?? '';
  if (host === lastHost.header && lastHost.attributes !== undefined) return { ...lastHost.attributes };
  const match = HOST_HEADER.exec(host);
  if (match) {
    const port = match[2] !== undefined ? Number(match[2]) : 80;
    const attributes = { 'server.address': match[1]!.replace(/^\[|\]$/g, ''), 'server.port': port };
    lastHost = { header: host, attributes };
    return { ...attributes };
  }
  const { localAddress, localPort } = req.socket;
  return { ...(localAddress !== undefined && { 'server.address': localAddress }), ...(localPort !== undefined && { 'server.port': localPort }) };
}

/** What the span of an inference request carries from its start. The gateway serves plain HTTP. */
export function serverSpanAttributes(kind: ApiKind, path: string, req: Pick<IncomingMessage, 'headers' | 'socket'>): Attributes {
  return {
    'http.request.method': 'POST',
    'url.scheme': 'http',
    'url.path': path,
    'http.route': path,
    ...serverAddressOf(req),
    'gen_ai.operation.name': kind === 'chat' ? 'chat' : 'text_completion',
    'gen_ai.provider.name': GEN_AI_PROVIDER,
  };
}

/**
 * What the span of a completed request says of its answer: the response's id and model, its one
 * choice's finish reason (`length` when it stopped at max_tokens, else `stop`, as the answer's
 * `finish_reason` is written) and the tokens generated.
 */
export function completedAnswerAttributes(id: string, model: string, outputTokens: number, maxTokens: number): Attributes {
  return {
    'gen_ai.response.id': id,
    'gen_ai.response.model': model,
    'gen_ai.response.finish_reasons': [outputTokens >= maxTokens ? 'length' : 'stop'],
  };
}
