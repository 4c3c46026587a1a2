import { percentile, type RunRecord, type RunReport } from '@sluice/metrics';
import type { ComparedRow } from './compare-reports.js';

/**
 * The hops and stages sluice's control plane puts between a client and an engine, in path order,
 * as the gateway's stage timings name them (libs/contracts StageTimingsSchema): what a request
 * through sluice's gateway pays that one sent straight to an engine does not. The engine's own
 * parts (worker queue, prefill, decode) are left out: a bare engine has them too.
 */
export const CONTROL_PLANE_STAGES = [
  ['clientSendMs', 'client send → gateway'],
  ['gatewayInMs', 'gateway in'],
  ['toAdmissionMs', '→ admission'],
  ['admissionMs', 'admission'],
  ['toFlowMs', '→ flow control'],
  ['flowQueueMs', 'flow-control queue'],
  ['toRouterMs', '→ router'],
  ['routingMs', 'routing'],
  ['toWorkerMs', '→ worker'],
] as const;

const DIFFERENCES = [
  ['ttft', 'p50'],
  ['ttft', 'p90'],
  ['ttft', 'p99'],
  ['itl', 'p50'],
  ['itl', 'p99'],
  ['e2e', 'p50'],
  ['e2e', 'p99'],
] as const;

const noDeltas = (values: readonly unknown[]): null[] => values.map(() => null);

/**
 * Each report's latency percentiles minus the first's, in ms (the first reads 0): reports of one
 * workload from two endpoints, e.g. sluice's gateway first and the bare engine behind it, so the
 * difference is what the gateway's path adds. Null where either side has no value.
 */
export function compareLatencyDifferences(reports: readonly RunReport[]): ComparedRow[] {
  return DIFFERENCES.map(([stat, field]) => {
    const values = reports.map((r) => r.overall[stat][field]);
    const base = values[0] ?? null;
    const differences = values.map((v) => (v === null || base === null ? null : v - base));
    return { metric: `${stat.toUpperCase()} ${field} − first, ms`, values: differences, deltasPct: noDeltas(differences) };
  });
}

/** The p50 of one timing over a run's served requests that carry it, or null when none does. */
function medianOf(records: readonly RunRecord[], read: (t: Readonly<Record<string, number | undefined>>) => number | undefined): number | null {
  const values = records.flatMap((r) => {
    if (r.outcome !== 'completed' || r.timings === undefined) return [];
    const v = read(r.timings as Readonly<Record<string, number | undefined>>);
    return v === undefined ? [] : [v];
  });
  return percentile(values.sort((a, b) => a - b), 50);
}

/**
 * The control plane's cost per stage, p50 over each run's served requests, for the reports whose
 * answers carried sluice's stage timings (the others read –, not 0: a bare engine has no such
 * stages to time). Then the whole path per request (every stage it timed), p50. None when no
 * report has stage timings.
 */
export function compareControlPlane(recordsOf: readonly (readonly RunRecord[])[]): ComparedRow[] {
  if (!recordsOf.some((records) => records.some((r) => r.timings !== undefined))) return [];
  const row = (metric: string, values: (number | null)[]): ComparedRow => ({ metric, values, deltasPct: noDeltas(values) });
  return [
    ...CONTROL_PLANE_STAGES.map(([key, name]) => row(`control plane p50 ms: ${name}`, recordsOf.map((records) => medianOf(records, (t) => t[key])))),
    row(
      'control plane p50 ms: whole path',
      recordsOf.map((records) =>
        medianOf(records, (t) => {
          const parts = CONTROL_PLANE_STAGES.map(([key]) => t[key]).filter((v) => v !== undefined);
          return parts.length === 0 ? undefined : parts.reduce((a, b) => a + b, 0);
        }),
      ),
    ),
  ];
}
