import type { InferenceRequest, Stage } from '@sluice/contracts';
import type { Span } from '@sluice/telemetry';
import type { Exchange } from './exchange.js';
import type { ObjectiveSeries, TokenSeries } from './gateway.metrics.js';

/** What the gateway keeps of a request it owns, from its arrival to its terminal outcome. */
export interface PendingRequest {
  readonly exchange: Exchange;
  readonly deadline: NodeJS.Timeout;
  readonly span: Span;
  readonly arrivalMs: number;
  readonly sloClass: string;
  /** The first attempt as sent: a re-submission is built from it and the tokens sent since. */
  readonly original: InferenceRequest;
  /** The prompt's token ids: a migrated request's blocks are those of the prompt plus its output so far. */
  readonly promptTokenIds: readonly number[];
  /** Tokens the client had received when the current attempt began (its tokens count from there). */
  attemptBaseTokens: number;
  /** Who held the current attempt at each stage (its `held` frames): the answer's `sluice.holders`. */
  holders: Partial<Record<Stage, string>>;
  /** When the latest token frame arrived (undefined before the first): the inter-token gaps. */
  lastTokenMs: number | undefined;
  /** The TTFT and ITL histograms' series of this request's model and SLO class. */
  readonly tokenSeries: TokenSeries;
  /** A streamed request's Endpoint Picker series (its TTFT and chunk gaps); undefined when not streamed. */
  readonly objective: ObjectiveSeries | undefined;
}
