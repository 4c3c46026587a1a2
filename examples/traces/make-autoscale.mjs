// Writes the autoscaling examples' workloads, examples/traces/autoscale-step.yaml + .csv and
// autoscale-diurnal.yaml + .csv (after `npm run build`), with the TraceV2 exporter: piecewise-
// constant Poisson rates, each phase a workload spec of its own (its own seed, so no two phases
// share a prompt), shifted to its start. One client, standard class, TTFT target 2 s: goodput
// counts the requests that met it.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportTraceV2, generateWorkloadRequests, validateWorkloadSpec } from '@sluice/workload';

const here = dirname(fileURLToPath(import.meta.url));
const TTFT_MS = 2000;

/** One phase: `rate` requests a second for `seconds`, prompts ~2 000 tokens, ~200 out. */
function phase(seed, rate, seconds) {
  return validateWorkloadSpec({
    seed,
    aggregate_rate: rate,
    horizon: seconds,
    clients: [
      {
        id: 'chat',
        tenant_id: 'acme',
        slo_class: 'standard',
        rate_fraction: 1,
        arrival: { process: 'poisson' },
        input_distribution: { type: 'gaussian', params: { mean: 2048, std_dev: 512, min: 256, max: 4096 } },
        output_distribution: { type: 'gaussian', params: { mean: 200, std_dev: 50, min: 16, max: 400 } },
      },
    ],
  });
}

/** The phases' requests, one after another in time, numbered in arrival order. */
function phases(list) {
  const out = [];
  let startMs = 0;
  list.forEach(([rate, seconds], i) => {
    for (const r of generateWorkloadRequests(phase(1000 + i, rate, seconds))) out.push({ ...r, arrivalMs: r.arrivalMs + startMs, slo: { ttftMs: TTFT_MS } });
    startMs += seconds * 1000;
  });
  out.sort((a, b) => a.arrivalMs - b.arrivalMs);
  return out.map((r, index) => ({ ...r, index }));
}

function write(name, comment, list) {
  const trace = exportTraceV2(phases(list), { header: { mode: 'generated', goodput_slo_targets: { standard: { ttft_ms: TTFT_MS } } } });
  writeFileSync(join(here, `${name}.yaml`), `${comment.map((l) => `# ${l}`.trimEnd()).join('\n')}\n${trace.header}`);
  writeFileSync(join(here, `${name}.csv`), trace.csv);
}

write(
  'autoscale-step',
  [
    'A step of load for the autoscaling examples (docs/autoscaling.md, "Examples"): 4 requests a second',
    'for 30 s, 28 a second for 90 s, 4 a second for 60 s; prompts ~2 000 tokens, ~200 out, TTFT target',
    '2 s. One qwen3-14b instance serves about 8 of these a second. Rows in autoscale-step.csv;',
    'written by make-autoscale.mjs. Try:',
    '  sluice simulate examples/traces/autoscale-step.yaml --config examples/config/autoscale-queue-depth.yaml',
  ],
  [
    [4, 30],
    [28, 90],
    [4, 60],
  ],
);

// A day in three minutes: twelve 15 s phases along a sine from 4 to 28 requests a second and back.
const diurnal = Array.from({ length: 12 }, (_, i) => [Math.round(16 - 12 * Math.cos((2 * Math.PI * (i + 0.5)) / 12)), 15]);
write(
  'autoscale-diurnal',
  [
    'A day in three minutes for the autoscaling examples (docs/autoscaling.md, "Examples"): twelve',
    `15 s phases along a sine from 4 to 28 requests a second and back (${diurnal.map(([r]) => r).join(', ')});`,
    'prompts ~2 000 tokens, ~200 out, TTFT target 2 s. Rows in autoscale-diurnal.csv; written by',
    'make-autoscale.mjs. Try:',
    '  sluice simulate examples/traces/autoscale-diurnal.yaml --config examples/config/autoscale-queue-depth.yaml',
  ],
  diurnal,
);
