import type { RunRecord } from '@sluice/metrics';

/**
 * What the real network and processes cost a request, as constants of the twin. The defaults are
 * the single-request breakdown measured on the live cluster (docs/benchmarks.md, "A single request
 * against the model"): 1.9 ms from the client's send to the gateway's handoff, about 0.5 ms per
 * NATS transit, about 0.4 ms inside each of admission, flow control and routing, and 1.4–1.8 ms for
 * a token's way back to the client.
 */
export interface HopLatencies {
  /** Client send → the gateway hands the request on (HTTP, parsing, hashing). */
  readonly gatewayUs: number;
  /** One transit between services: gateway→admission, admission→flow, flow→router, router→worker, and a worker's done event. */
  readonly transitUs: number;
  /** Inside admission, flow control and the router: receipt → handoff. */
  readonly admissionUs: number;
  readonly flowUs: number;
  readonly routerUs: number;
  /** A token or an error answer's way back to the client. */
  readonly returnUs: number;
  /**
   * Each transit of a request on its way in, where it was measured on its own (a live run's hop
   * profile); absent: `transitUs` for each.
   */
  readonly intoUs?: Readonly<Record<SubmitHop, number>>;
}

/** The hops a request takes from one process to the next, each named by the stage it reaches. */
export type SubmitHop = 'admission' | 'flow' | 'router' | 'worker';

/** The transit of a request into `to`. */
export function transitIntoUs(hops: HopLatencies, to: SubmitHop): number {
  return hops.intoUs === undefined ? hops.transitUs : hops.intoUs[to];
}

export const DEFAULT_HOP_LATENCIES: HopLatencies = {
  gatewayUs: 1_900,
  transitUs: 500,
  admissionUs: 400,
  flowUs: 400,
  routerUs: 400,
  returnUs: 1_600,
};

/**
 * A frame's way from a stage or an instance to the gateway: one transit, or the whole way back when
 * that is shorter. With `gatewayToClientUs` it makes up the way back to the client (`returnUs`).
 */
export function frameToGatewayUs(hops: HopLatencies): number {
  return Math.min(hops.returnUs, hops.transitUs);
}

/** An answer's way from the gateway to its client: the way back without the transit to the gateway. */
export function gatewayToClientUs(hops: HopLatencies): number {
  return hops.returnUs - frameToGatewayUs(hops);
}

const median = (xs: number[]): number | undefined => {
  if (xs.length === 0) return undefined;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** No hop takes time: BLIS parity mode's cluster (routing and admission latency 0, no network). */
export const ZERO_HOP_LATENCIES: HopLatencies = { gatewayUs: 0, transitUs: 0, admissionUs: 0, flowUs: 0, routerUs: 0, returnUs: 0 };

/**
 * Hop latencies taken from a live run's records: admission and routing from the median stage
 * timings the pipeline reported; the rest of the path (what the client's TTFT has beyond the
 * stages the pipeline timed: gateway, five transits, the way back, flow processing) from the
 * median residual, split in the default proportions. Falls back to the defaults when the run
 * served nothing.
 */
export function hopsFromRecords(records: readonly RunRecord[]): HopLatencies {
  const served = records.filter((r) => r.outcome === 'completed' && r.timings && r.firstTokenMs !== undefined);
  const admission = median(served.map((r) => r.timings!.admissionMs ?? 0));
  const routing = median(served.map((r) => r.timings!.routingMs ?? 0));
  const residual = median(
    served.map((r) => {
      const t = r.timings!;
      return r.firstTokenMs! - r.arrivalMs - (t.admissionMs ?? 0) - (t.flowQueueMs ?? 0) - (t.routingMs ?? 0) - (t.workerQueueMs ?? 0) - (t.prefillMs ?? 0);
    }),
  );
  if (admission === undefined || routing === undefined || residual === undefined) return DEFAULT_HOP_LATENCIES;
  const d = DEFAULT_HOP_LATENCIES;
  const rest = d.gatewayUs + 4 * d.transitUs + d.flowUs + d.returnUs;
  const scale = Math.max(0, residual * 1000) / rest;
  return {
    gatewayUs: d.gatewayUs * scale,
    transitUs: d.transitUs * scale,
    admissionUs: admission * 1000,
    flowUs: d.flowUs * scale,
    routerUs: routing * 1000,
    returnUs: d.returnUs * scale,
  };
}
