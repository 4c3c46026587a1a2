import { z } from 'zod';

/**
 * A hop latency of the twin, in microseconds. Not ms, as the people-facing keys elsewhere are:
 * these are sub-millisecond (0.4 ms inside a stage), they are what the twin's clock counts in
 * (libs/twin's `HopLatencies`, whose key names these are), and `sluice simulate --hop-latency-from`
 * writes the hops it measured into report.json's `config.hops` in µs, so they can be copied here
 * unchanged. Zero is allowed: a hop that costs nothing (BLIS's routing and admission latency 0).
 * Fractions are allowed too: measured hops are medians scaled by a ratio.
 */
const HopUs = (defaultUs: number) => z.number().nonnegative().default(defaultUs);

/**
 * `twin.hops`: what the real network and processes cost a request in `sluice simulate`
 * (docs/twin.md, "Hop latencies"). The defaults are libs/twin's DEFAULT_HOP_LATENCIES, the
 * single-request breakdown measured on the live cluster (libs/twin's hops.spec.ts keeps the two
 * equal; config cannot import the twin, a pure library of a layer it does not see).
 */
export const TwinHopsSchema = z.strictObject({
  /** Client send → the gateway hands the request on (HTTP, parsing, hashing). */
  gatewayUs: HopUs(1_900),
  /** One transit between services (four forward, and each done event). */
  transitUs: HopUs(500),
  /** Inside admission, flow control and the router: receipt → handoff. */
  admissionUs: HopUs(400),
  flowUs: HopUs(400),
  routerUs: HopUs(400),
  /** A token or an error answer's way back to the client. */
  returnUs: HopUs(1_600),
});

/** `twin`: what only `sluice simulate` reads; the live services ignore it. */
export const TwinSectionSchema = z.strictObject({
  hops: TwinHopsSchema.prefault({}),
  /**
   * A hop profile (a file `sluice simulate --save-hop-profile` wrote, or a live run's report.json):
   * each request of the twin takes one live request's whole path, drawn with the run's seed,
   * instead of `hops` (docs/twin.md, "Hop latencies"). Read by every command that runs the twin.
   */
  hopProfile: z.string().min(1).optional(),
  /**
   * `sluice simulate` streams a workload of more requests than this (a spec's num_requests, else
   * aggregate_rate × horizon; a trace's rows): its records go to records.ndjson beside report.json
   * and its summaries are built as they settle (docs/twin.md, "Streamed runs"). Unset: 200 000.
   */
  streamAbove: z.number().int().nonnegative().optional(),
});
