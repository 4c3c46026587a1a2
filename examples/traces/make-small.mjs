// Writes examples/traces/small.yaml + small.csv from small.spec.yaml with the TraceV2 exporter
// (after `npm run build`), so the example trace is the spec's requests, not hand-typed rows.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportTraceV2, generateWorkloadRequests, parseWorkloadSpec, tracePrefixesFromSpec } from '@sluice/workload';

const here = dirname(fileURLToPath(import.meta.url));
const spec = parseWorkloadSpec(readFileSync(join(here, 'small.spec.yaml'), 'utf8'));
const trace = exportTraceV2(generateWorkloadRequests(spec), {
  header: { mode: 'generated', workload_seed: spec.seed, workload_spec: 'examples/traces/small.spec.yaml' },
  prefixes: tracePrefixesFromSpec(spec),
});
// YAML comments are allowed in a TraceV2 header (BLIS reads it with a YAML decoder too).
const comment = [
  '# A small BLIS TraceV2 trace: 40 requests over ~4 s from two tenants; acme\'s chat requests share',
  '# one prefix group (a 256-token system prompt), globex\'s batch requests have none. Its rows are',
  '# in small.csv beside this file. Generated from small.spec.yaml by make-small.mjs. Try:',
  '#   sluice simulate examples/traces/small.yaml --export-trace .sluice/traces/small-twin',
  '#   sluice run examples/traces --export-trace .sluice/traces/small-live',
];
writeFileSync(join(here, 'small.yaml'), `${comment.join('\n')}\n${trace.header}`);
writeFileSync(join(here, 'small.csv'), trace.csv);
