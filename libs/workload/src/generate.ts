import { seededRandom } from '@sluice/collections';
import type { SloTargets } from '@sluice/contracts';
import { logGamma, sampleExponential, sampleGamma, sampleStandardNormal, sampleWeibull, weibullShapeForCv, type Uniform } from './math.js';
import { rateShapeOf } from './rate-shape/workload-rate-shape.js';
import type { Arrival, LengthDistribution, SloClass, SloTargetsSpec, WorkloadSpec } from './spec.js';
import { NO_TOKENS, drawPrompt, drawTokenIds, type TokenIds } from './token-ids.js';

/** One generated request. */
export interface WorkloadRequest {
  /** 0, 1, 2… in arrival order. */
  index: number;
  clientId: string;
  /** The fairness id (the spec's `tenant_id`): the flow it joins within its priority band, in practice its tenant. */
  fairnessId: string;
  sloClass: SloClass;
  /** Milliseconds since the start of the workload. */
  arrivalMs: number;
  /** The group's shared prefix (if any) followed by the request's own tokens. */
  inputTokens: TokenIds;
  maxTokens: number;
  /** Its latency targets (none: absent); one object shared by the requests of one client. */
  slo?: SloTargets;
  /**
   * A trace row's `deadline_us` (BLIS's client timeout), in ms on the clock of `arrivalMs`; absent
   * when the row has none (0). Carried back into exported traces; neither `sluice run` nor the
   * twin acts on it: sluice's gateway has one request timeout for all (gateway.requestTimeoutMs).
   */
  deadlineMs?: number;
}

export interface GenerateOptions {
  /** Overrides the spec's seed. */
  seed?: number;
}

/** Draws the next inter-arrival time (ms) of one client. */
type InterArrival = (rng: Uniform) => number;

function interArrival(arrival: Arrival, rate: number): InterArrival {
  const meanMs = 1000 / rate;
  switch (arrival.process) {
    case 'poisson':
      return (rng) => sampleExponential(rng, meanMs);
    case 'constant':
      return () => meanMs;
    case 'gamma': {
      // cv = 1/√k, mean = kθ.
      const shape = 1 / (arrival.cv * arrival.cv);
      const scale = meanMs / shape;
      return (rng) => sampleGamma(rng, shape, scale);
    }
    case 'weibull': {
      // mean = λ Γ(1 + 1/k).
      const shape = weibullShapeForCv(arrival.cv);
      const scale = meanMs / Math.exp(logGamma(1 + 1 / shape));
      return (rng) => sampleWeibull(rng, shape, scale);
    }
  }
}

/** Draws one token length: rounded, at least 1 (and within [min, max] for gaussian). */
export function lengthSampler(dist: LengthDistribution): (rng: Uniform) => number {
  const atLeastOne = (x: number) => Math.max(1, Math.round(x));
  switch (dist.type) {
    case 'gaussian': {
      const { mean, std_dev, min = 1, max = Infinity } = dist.params;
      const lo = Math.max(1, Math.ceil(min));
      const hi = Math.max(lo, Math.floor(max));
      return (rng) => Math.min(hi, Math.max(lo, Math.round(mean + std_dev * sampleStandardNormal(rng))));
    }
    case 'exponential':
      return (rng) => atLeastOne(sampleExponential(rng, dist.params.mean));
    case 'lognormal': {
      const { mu, sigma } = dist.params;
      return (rng) => atLeastOne(Math.exp(mu + sigma * sampleStandardNormal(rng)));
    }
    case 'constant': {
      const value = atLeastOne(dist.params.value);
      return () => value;
    }
    case 'empirical': {
      const { values } = dist.params;
      const weights = dist.params.weights ?? values.map(() => 1);
      const cumulative: number[] = [];
      let total = 0;
      for (const w of weights) cumulative.push((total += w));
      return (rng) => {
        const target = rng() * total;
        let i = 0;
        while (i < values.length - 1 && cumulative[i]! <= target) i++;
        return atLeastOne(values[i]!);
      };
    }
  }
}

interface ClientState {
  id: string;
  fairnessId: string;
  sloClass: SloClass;
  next: InterArrival;
  input: (rng: Uniform) => number;
  output: (rng: Uniform) => number;
  prefix: TokenIds;
  slo: SloTargets | undefined;
  /** On the operational clock when the spec has a rate shape (the workload's own without one). */
  nextArrivalMs: number;
}

/**
 * A client's targets: its class's (`slo_targets`) with each dimension the client's own `slo` sets
 * put in its place, as BLIS merges its sources dimension by dimension (cmd/goodput.go,
 * mergeGoodputTargets, inference-sim/inference-sim@f90a1e3a6787da17c2cd463dab6fb2660b1b1760).
 */
export function clientSloTargets(ofClass: SloTargetsSpec | undefined, own: SloTargetsSpec | undefined): SloTargets | undefined {
  const ttftMs = own?.ttft_ms ?? ofClass?.ttft_ms;
  const tpotMs = own?.tpot_ms ?? ofClass?.tpot_ms;
  const e2eMs = own?.e2e_ms ?? ofClass?.e2e_ms;
  if (ttftMs === undefined && tpotMs === undefined && e2eMs === undefined) return undefined;
  return Object.freeze({ ...(ttftMs === undefined ? {} : { ttftMs }), ...(tpotMs === undefined ? {} : { tpotMs }), ...(e2eMs === undefined ? {} : { e2eMs }) });
}

/**
 * Yields the spec's requests lazily, in arrival order, until num_requests have been produced or
 * the next arrival would be at or past the horizon, whichever comes first. Every variate comes
 * from one seeded source (mulberry32) drawn in a fixed order, so one spec and seed always give
 * the same requests. Each client is a renewal process at aggregate_rate × its normalized share;
 * clients merge by time, ties going to the client listed first. With a rate shape (`stages` or
 * `diurnal`) that time is operational time, and each request arrives at its image under the shape's
 * change of time (rate-shape/rate-shape.ts): the same draws in the same order, sent when the shape
 * says. The horizon is on the workload's clock.
 */
export function* generateWorkload(spec: WorkloadSpec, options: GenerateOptions = {}): Generator<WorkloadRequest, void, undefined> {
  const rng = seededRandom(options.seed ?? spec.seed);
  const totalShare = spec.clients.reduce((sum, c) => sum + c.rate_fraction, 0);
  // Group prefixes first, in order of first appearance, so they do not depend on arrival order.
  const prefixes = new Map<string, TokenIds>();
  for (const c of spec.clients) {
    if (c.prefix_group !== undefined && !prefixes.has(c.prefix_group)) prefixes.set(c.prefix_group, drawTokenIds(rng, c.prefix_length ?? 0));
  }
  const clients: ClientState[] = spec.clients.map((c) => ({
    id: c.id,
    fairnessId: c.tenant_id,
    sloClass: c.slo_class,
    next: interArrival(c.arrival, (spec.aggregate_rate * c.rate_fraction) / totalShare),
    input: lengthSampler(c.input_distribution),
    output: lengthSampler(c.output_distribution),
    prefix: c.prefix_group === undefined ? NO_TOKENS : (prefixes.get(c.prefix_group) ?? NO_TOKENS),
    slo: clientSloTargets(spec.slo_targets?.[c.slo_class], c.slo),
    nextArrivalMs: 0,
  }));
  for (const c of clients) c.nextArrivalMs = c.next(rng);

  const shape = rateShapeOf(spec);
  const limit = spec.num_requests ?? Infinity;
  const horizonMs = spec.horizon === undefined ? Infinity : spec.horizon * 1000;
  for (let index = 0; index < limit; index++) {
    let chosen = clients[0]!;
    for (const c of clients) if (c.nextArrivalMs < chosen.nextArrivalMs) chosen = c;
    const operationalMs = chosen.nextArrivalMs;
    const arrivalMs = shape === undefined ? operationalMs : shape.workloadMs(operationalMs);
    if (arrivalMs >= horizonMs) return;
    const inputLength = chosen.input(rng);
    const maxTokens = chosen.output(rng);
    const inputTokens = drawPrompt(rng, chosen.prefix, inputLength);
    chosen.nextArrivalMs = operationalMs + chosen.next(rng);
    const request: WorkloadRequest = { index, clientId: chosen.id, fairnessId: chosen.fairnessId, sloClass: chosen.sloClass, arrivalMs, inputTokens, maxTokens };
    if (chosen.slo !== undefined) request.slo = chosen.slo;
    yield request;
  }
}

/** All of the spec's requests as an array (the spec is bounded by num_requests and/or horizon). */
export function generateWorkloadRequests(spec: WorkloadSpec, options: GenerateOptions = {}): WorkloadRequest[] {
  return [...generateWorkload(spec, options)];
}
