import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { DEFAULT_SLO_CLASS, httpHeaders, type Micros, type OutcomeReason, type SloClass } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { DEFAULT_FAIRNESS_ID, KeyRateLimits, chatDefaultMaxTokens, costRefusal, readRequestHeaders, retryAfterSecondsOf, type HeaderReading } from '@sluice/stages';
import type { ApiKey, ApiKeys } from './api-keys.js';
import { BodyError, BodyTimeoutError, BodyTooLargeError, parseInferenceBody, readJsonBody, type ApiKind } from '@sluice/openai';
import { HeaderTrust, SCHEDULING_HEADERS } from './scheduling-headers.js';

/** How a request is scheduled: its tenant, objective, SLO class and TTFT objective. */
export interface Scheduling {
  readonly fairnessId: string;
  readonly objective: string | undefined;
  readonly sloClass: SloClass;
  readonly sloTtftMs: number | undefined;
}

/** A request the gateway takes: what its body asks for and how it is scheduled. */
export interface TakenRequest {
  readonly ok: true;
  readonly key: ApiKey | undefined;
  readonly model: string;
  readonly tokenIds: number[];
  readonly maxTokens: number;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly bodyBytes: number;
  readonly scheduling: Scheduling;
  /** The scheduling headers were read: no API key, and a trusted source (else defaults or the key's). */
  readonly headersTrusted: boolean;
  readonly reportTimings: boolean;
  /** The client's send stamp (`x-sluice-sent-at`), when it sent one. */
  readonly sentAt?: { readonly atMs: number; readonly clock: string };
}

/** A request the gateway ends at its door, with the reason it is counted under. */
export interface Refusal {
  readonly ok: false;
  readonly reason: OutcomeReason;
  /** What the client is told; undefined when it went away and nothing can be answered. */
  readonly message: string | undefined;
  readonly param: string | null;
  /** Extra response headers (`retry-after`; `connection: close` when the body was left unread). */
  readonly headers: Readonly<Record<string, string>>;
  readonly key: ApiKey | undefined;
}

/** The answer leaves before the body is read: the connection closes rather than read what is left of it. */
const CLOSE = { connection: 'close' } as const;

/**
 * Everything the gateway checks before a request goes down the pipeline, cheapest and most
 * telling first: the API key and its rate, the body's size and arrival, the headers, the body's
 * fields, and what it would cost. Each refusal names what was wrong and is an outcome reason of
 * its own (libs/contracts outcomes.ts), so the caller answers it and counts it like any other.
 */
export class RequestIntake {
  private readonly rates = new KeyRateLimits();
  private readonly trust: HeaderTrust;

  constructor(
    private readonly config: SluiceConfig,
    private readonly keys: ApiKeys,
    private readonly onHeadersStripped: () => void,
  ) {
    this.trust = new HeaderTrust(config.gateway.trustedHeaderSources);
  }

  async take(kind: ApiKind, req: IncomingMessage, nowUs: Micros): Promise<TakenRequest | Refusal> {
    let key: ApiKey | undefined;
    if (this.keys.enabled) {
      const auth = this.keys.authenticate(req.headers[httpHeaders.authorization]);
      if (!auth.ok) return refusal('invalid_api_key', auth.message, null, undefined, CLOSE);
      key = auth.key;
      const rate = key.rateLimit === undefined ? undefined : this.rates.take(key.id, key.rateLimit, nowUs);
      if (rate !== undefined && !rate.ok) {
        const message = `API key "${key.id}" is over its rate limit of ${key.rateLimit!.requestsPerSecond} requests/s (burst ${key.rateLimit!.burst}): retry after ${rate.retryAfterMs} ms`;
        return refusal('api_key_rate_limited', message, null, key, { ...CLOSE, 'retry-after': String(retryAfterSecondsOf('api_key_rate_limited', rate.retryAfterMs)) });
      }
    }

    const { limits, bodyTimeoutMs } = this.config.gateway;
    let body: unknown;
    let bodyBytes: number;
    try {
      ({ value: body, bytes: bodyBytes } = await readJsonBody(req, { limitBytes: limits.maxBodyBytes, limitName: 'gateway.limits.maxBodyBytes', timeoutMs: bodyTimeoutMs }));
    } catch (error) {
      if (error instanceof BodyTooLargeError) return refusal('body_too_large', error.message, null, key, CLOSE);
      if (error instanceof BodyTimeoutError) return refusal('body_timeout', error.message, null, key, CLOSE);
      if (error instanceof BodyError) return refusal('invalid_request', error.message, null, key);
      // The client went away mid-body (aborted, broken chunked encoding, a short Content-Length).
      return refusal('client_disconnected', undefined, null, key);
    }

    const headers = this.readHeaders(req, key);
    if (!headers.reading.ok) return refusal('invalid_request', headers.reading.message, headers.reading.header, key);
    const parsed = parseInferenceBody(kind, body, this.config.models);
    if (!parsed.ok) return refusal('invalid_request', parsed.message, parsed.param, key);
    const model = this.config.models.find((m) => m.name === parsed.model)!;
    // No length asked for: the context left, within the gateway's cap on output (vLLM's override).
    const maxTokens = parsed.maxTokens ?? chatDefaultMaxTokens(parsed.tokenIds.length, model.maxModelLen, limits.maxTokens);
    const tooDear = costRefusal(parsed.tokenIds.length, maxTokens, model, limits);
    if (tooDear !== undefined) return refusal(tooDear.reason, tooDear.message, tooDear.param, key);

    return {
      ok: true,
      key,
      model: parsed.model,
      tokenIds: parsed.tokenIds,
      maxTokens,
      stream: parsed.stream,
      includeUsage: parsed.includeUsage,
      bodyBytes,
      scheduling: schedulingOf(headers.reading, key),
      headersTrusted: headers.trusted,
      reportTimings: headers.reading.reportTimings,
      ...(headers.reading.sentAt ? { sentAt: headers.reading.sentAt } : {}),
    };
  }

  /**
   * The headers as they count: with API keys the scheduling headers are the key's business and
   * are not read at all; without, they count only from a trusted source (docs/behaviour.md §3).
   */
  private readHeaders(req: IncomingMessage, key: ApiKey | undefined): { reading: HeaderReading; trusted: boolean } {
    if (key !== undefined) {
      const counted = without(req.headers, SCHEDULING_HEADERS);
      return { reading: readRequestHeaders((name) => single(counted[name])), trusted: false };
    }
    const filtered = this.trust.filter(req.headers, req.socket.remoteAddress);
    if (filtered.stripped) this.onHeadersStripped();
    return { reading: readRequestHeaders((name) => single(filtered.headers[name])), trusted: !filtered.stripped };
  }
}

function refusal(reason: OutcomeReason, message: string | undefined, param: string | null, key: ApiKey | undefined, headers: Record<string, string> = {}): Refusal {
  return { ok: false, reason, message, param, headers, key };
}

function schedulingOf(reading: Extract<HeaderReading, { ok: true }>, key: ApiKey | undefined): Scheduling {
  if (key !== undefined) return { fairnessId: key.fairnessId, objective: key.objective, sloClass: key.sloClass, sloTtftMs: key.sloTtftMs };
  return {
    fairnessId: reading.fairnessId ?? DEFAULT_FAIRNESS_ID,
    objective: reading.objective,
    sloClass: reading.sloClass ?? DEFAULT_SLO_CLASS,
    sloTtftMs: reading.sloTtftMs,
  };
}

/** Node joins a repeated custom header with ", "; `set-cookie` alone comes as a list. */
function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function without(headers: IncomingHttpHeaders, names: readonly string[]): IncomingHttpHeaders {
  const kept = { ...headers };
  for (const name of names) delete kept[name];
  return kept;
}
