import type { StepCoefficients } from '../admission-signals.js';

/**
 * The qwen3-14b / H100 blackbox β (BLIS's coefficients, docs/behaviour.md §1): the fallback when
 * admission has no profile for the request's model and the params set none.
 */
const QWEN3_14B = { stepBaseUs: 13_578.186663, prefillPerTokenUs: 39.444656, decodePerTokenUs: 27.32 } as const;

/** The three numbers the prediction uses, and where they came from (a span attribute). */
export interface StepModel {
  /** One queued request ahead costs this, µs. */
  readonly avgStepTimeUs: number;
  /** β0 of the prefill step, µs. */
  readonly prefillBaseUs: number;
  /** β1: µs per uncached prompt token. */
  readonly prefillPerTokenUs: number;
  /** `params`, `profile:<name>`, `default` (qwen3-14b), or a mix when params set some. */
  readonly source: string;
}

export interface StepModelParams {
  readonly avgStepTimeUs?: number | undefined;
  readonly prefillBaseUs?: number | undefined;
  readonly prefillPerTokenUs?: number | undefined;
}

/**
 * The prediction's coefficients for one model: each explicit param wins; the rest come from the
 * serving model's profile (already in wall-clock µs), else from qwen3-14b's. From a profile, one
 * queued request ahead costs a one-token decode step, β0 + β2, as BLIS's iteration-14 note
 * derives its default (and the qwen3-14b default here is exactly that).
 */
export function stepModelFor(params: StepModelParams, profile: StepCoefficients | undefined): StepModel {
  const base = profile ?? QWEN3_14B;
  const from = profile ? `profile:${profile.profile}` : 'default';
  const explicit = [params.avgStepTimeUs, params.prefillBaseUs, params.prefillPerTokenUs].filter((v) => v !== undefined).length;
  return {
    avgStepTimeUs: params.avgStepTimeUs ?? Math.trunc(base.stepBaseUs + base.decodePerTokenUs),
    prefillBaseUs: params.prefillBaseUs ?? base.stepBaseUs,
    prefillPerTokenUs: params.prefillPerTokenUs ?? base.prefillPerTokenUs,
    source: explicit === 3 ? 'params' : explicit === 0 ? from : `params+${from}`,
  };
}
