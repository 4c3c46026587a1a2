import type { Stage, StageTimings } from '@sluice/contracts';
import type { Span } from '@sluice/telemetry';
import type { Exchange } from '@sluice/openai';
import type { ObjectiveSeries, TokenSeries } from './gateway.metrics.js';

/**
 * What the gateway service keeps of a request the core owns, from its arrival to its terminal
 * outcome: the HTTP side and what it measures. The core passes it back with every effect.
 */
export interface OpenExchange {
  readonly exchange: Exchange;
  readonly span: Span;
  readonly arrivalMs: number;
  /** The prompt's token ids: a migrated request's blocks are those of the prompt plus its output so far. */
  readonly promptTokenIds: readonly number[];
  /** Who held the latest attempt heard from at each stage (its `held` frames): the answer's `sluice.holders`. */
  holders: Partial<Record<Stage, string>>;
  /** The attempt `holders` describes: a newer one's first `held` frame starts them afresh. */
  holdersOf: number;
  /** When the latest tokens reached the gateway (undefined before the first): the inter-token gaps. */
  lastTokenMs: number | undefined;
  /** The TTFT and ITL histograms' series of this request's model and SLO class. */
  readonly tokenSeries: TokenSeries;
  /** A streamed request's Endpoint Picker series (its TTFT and chunk gaps); undefined when not streamed. */
  readonly objective: ObjectiveSeries | undefined;
}

/**
 * What an `end` frame gives the answer: the instance that served the request, the stage timings
 * and the prompt tokens it found in the prefix cache (unknown for an answer whose end was lost).
 */
export interface EndOfAnswer {
  readonly instance: string;
  readonly timings: StageTimings;
  readonly cachedTokens?: number;
}
