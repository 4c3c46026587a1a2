import type { RunRecord } from '@sluice/metrics';
import type { HopLatencies, SubmitHop } from './hops.js';

/**
 * The hops of one live request, as its answer's stage timings measured them, in µs. One sample is
 * one request's whole path: drawing whole paths (not each hop on its own) keeps what the hops of
 * one request share, a machine busy for all of them at once, which is what the tail is made of.
 */
export interface HopSample {
  /** The workload place of the live request it was measured on (its record's `r<index>` id), when known. */
  readonly position?: number;
  /**
   * The client's send → handed to admission: `clientSendMs` (the connection and the wait for the
   * gateway's event loop, when the client stamped its send on the gateway's host) + `gatewayInMs`.
   */
  readonly gatewayUs: number;
  readonly toAdmissionUs: number;
  readonly admissionUs: number;
  readonly toFlowUs: number;
  readonly toRouterUs: number;
  readonly routerUs: number;
  readonly toWorkerUs: number;
  /**
   * What the client's TTFT has beyond every timed part: the client's own send, the first token's
   * way back through the gateway, and the worker's timers firing late on a busy machine.
   */
  readonly returnUs: number;
}

export const HOP_SAMPLE_KEYS = ['gatewayUs', 'toAdmissionUs', 'admissionUs', 'toFlowUs', 'toRouterUs', 'routerUs', 'toWorkerUs', 'returnUs'] as const satisfies readonly (keyof HopSample)[];

/**
 * A named set of hop samples, kept as a file (`sluice simulate --save-hop-profile`) so that the
 * path a live cluster measured can be reused without its report. `samples` are rows in the order
 * of `HOP_SAMPLE_KEYS`.
 */
export interface HopProfile {
  readonly kind: 'sluice-hop-profile';
  readonly version: 1;
  readonly name: string;
  /** Where the samples came from (a report's path, or a description). */
  readonly source: string;
  readonly columns: readonly (typeof HOP_SAMPLE_KEYS)[number][];
  readonly samples: readonly (readonly number[])[];
}

const round = (us: number): number => Math.round(us * 10) / 10;

/**
 * One sample per served request of a live run that carried its full stage timings (a run whose
 * gateway timed every hop: `sluice run` asks for them). Requests without them (an older gateway, a
 * hop between two hosts, which the clocks cannot time) are left out.
 */
export function hopSamplesFromRecords(records: readonly RunRecord[]): HopSample[] {
  const samples: HopSample[] = [];
  for (const r of records) {
    if (r.outcome !== 'completed' || r.firstTokenMs === undefined || !r.timings) continue;
    const t = r.timings as Readonly<Record<string, number | undefined>>;
    const parts = [t['gatewayInMs'], t['toAdmissionMs'], t['admissionMs'], t['toFlowMs'], t['flowQueueMs'], t['toRouterMs'], t['routingMs'], t['toWorkerMs'], t['workerQueueMs'], t['prefillMs']];
    if (parts.some((p) => p === undefined)) continue;
    const [gatewayIn, toAdmission, admission, toFlow, , toRouter, routing, toWorker] = parts as number[];
    // The client's own send, when the gateway could time it: it comes before the pipeline, so
    // it moves the request's arrival everywhere after it (on a busy machine, tens of ms).
    const clientSend = t['clientSendMs'] ?? 0;
    const timed = (parts as number[]).reduce((sum, p) => sum + p, clientSend);
    const residual = Math.max(0, r.firstTokenMs - r.arrivalMs - timed);
    const index = /^r(\d+)$/.exec(r.id);
    samples.push({
      ...(index ? { position: Number(index[1]) } : {}),
      gatewayUs: round((clientSend + gatewayIn!) * 1000),
      toAdmissionUs: round(toAdmission! * 1000),
      admissionUs: round(admission! * 1000),
      toFlowUs: round(toFlow! * 1000),
      toRouterUs: round(toRouter! * 1000),
      routerUs: round(routing! * 1000),
      toWorkerUs: round(toWorker! * 1000),
      returnUs: round(residual * 1000),
    });
  }
  return samples;
}

export function hopProfileOf(name: string, source: string, samples: readonly HopSample[]): HopProfile {
  return { kind: 'sluice-hop-profile', version: 1, name, source, columns: [...HOP_SAMPLE_KEYS], samples: samples.map((s) => HOP_SAMPLE_KEYS.map((k) => s[k])) };
}

export function hopSamplesOf(profile: HopProfile): HopSample[] {
  const at = HOP_SAMPLE_KEYS.map((k) => profile.columns.indexOf(k));
  const missing = HOP_SAMPLE_KEYS.filter((_, i) => at[i]! < 0);
  if (missing.length > 0) throw new Error(`hop profile ${profile.name}: no column ${missing.join(', ')}`);
  return profile.samples.map((row, n) => {
    const sample = Object.fromEntries(HOP_SAMPLE_KEYS.map((k, i) => [k, row[at[i]!]])) as Record<(typeof HOP_SAMPLE_KEYS)[number], number | undefined>;
    for (const k of HOP_SAMPLE_KEYS) {
      const v = sample[k];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`hop profile ${profile.name}: sample ${n} has ${k} = ${String(v)} (a non-negative number of µs expected)`);
    }
    return sample as unknown as HopSample;
  });
}

/**
 * The hops a request of the twin takes when it drew `sample`: the timed hops as measured, and the
 * transits the answers do not time (a done event, a migration's hand-back, a cancel) at the
 * sample's mean transit. Flow control's own processing is inside its queue time, which the twin
 * models; live it was under 0.05 ms at the median, so it is 0 here.
 */
export function hopLatenciesOf(sample: HopSample): HopLatencies {
  const into: Record<SubmitHop, number> = { admission: sample.toAdmissionUs, flow: sample.toFlowUs, router: sample.toRouterUs, worker: sample.toWorkerUs };
  return {
    gatewayUs: sample.gatewayUs,
    transitUs: round((into.admission + into.flow + into.router + into.worker) / 4),
    admissionUs: sample.admissionUs,
    flowUs: 0,
    routerUs: sample.routerUs,
    returnUs: sample.returnUs,
    intoUs: into,
  };
}

/**
 * The path of each request of a run: the sample drawn for its place in the workload, with the
 * run's seed (a hash of seed and place, so the draw does not depend on the order requests arrive
 * in). `base` is the profile's median path, for what belongs to no request.
 */
export class HopDraws {
  private readonly paths: readonly HopLatencies[];
  /** Paired: each live request's own path, by its workload place. */
  private readonly byPosition: ReadonlyMap<number, HopLatencies> | undefined;
  readonly base: HopLatencies;

  /**
   * `paired`: a request takes the path its live counterpart (same place in the same workload)
   * measured, and draws one only when that request was not served live. Comparing the twin with
   * the run it took its hops from, this leaves out the noise of drawing; with another workload
   * or a profile, the draw is what is wanted.
   */
  constructor(samples: readonly HopSample[], private readonly seed: number, paired = false) {
    if (samples.length === 0) throw new Error('a hop profile with no samples: the live run served nothing with its stage timings');
    this.paths = samples.map(hopLatenciesOf);
    this.byPosition = paired ? new Map(samples.flatMap((s, i) => (s.position === undefined ? [] : [[s.position, this.paths[i]!] as const]))) : undefined;
    this.base = hopLatenciesOf(medianSample(samples));
  }

  /** The path of the request at `position`. */
  of(position: number): HopLatencies {
    return this.byPosition?.get(position) ?? this.paths[mix32(this.seed, position) % this.paths.length]!;
  }
}

/** Each hop's median on its own (the constants `--hop-sampling median` uses). */
export function medianSample(samples: readonly HopSample[]): HopSample {
  const median = (k: (typeof HOP_SAMPLE_KEYS)[number]): number => {
    const sorted = samples.map((s) => s[k]).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  return Object.fromEntries(HOP_SAMPLE_KEYS.map((k) => [k, median(k)])) as unknown as HopSample;
}

/** A 32-bit hash of two integers (murmur3's finaliser over their mix): uniform enough to pick a sample. */
function mix32(a: number, b: number): number {
  let h = (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
