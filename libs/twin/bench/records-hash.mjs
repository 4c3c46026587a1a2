// The twin's records, fingerprinted:  npm run build && node libs/twin/bench/records-hash.mjs [requests]
// Runs the twin bench's workload and config (four qwen3-14b instances, weighted routing, Poisson at
// 120 requests/s; libs/twin/bench/twin.bench.mjs) and prints the first 12 hex digits of the SHA-256
// of the records' JSON. A change that should not change what the twin computes (a refactor, a
// speed-up) must print the same fingerprint before and after; docs/twin.md gives the current one
// for 30 000 requests, and the command exits 1 when it differs.
import { createHash } from 'node:crypto';
import { loadProfile } from '@sluice/config';
import { generateWorkloadRequests } from '@sluice/workload';
import { simulate } from '../dist/index.js';
import { benchConfig, benchSpec } from './bench-workload.mjs';

/**
 * The fingerprint of 30 000 requests, as docs/twin.md records it. It was 79da8c9197c7 until the
 * qwen3-14b profile took BLIS's full-precision coefficients (some steps 1 µs apart), then
 * a9232dd9bc87 until each record's `tenant` was named `fairnessId` (the same records otherwise:
 * with the key named `tenant` again they hash to a9232dd9bc87), then 6cbb33f1ec60 until each
 * served record carried its `cachedTokens` (without that key they still hash to 6cbb33f1ec60).
 */
const EXPECTED_30K = '41d8c48d9fc8';

const requests = Number(process.argv[2] ?? 30_000);
const config = benchConfig();
const spec = benchSpec(requests);
const { records } = simulate(generateWorkloadRequests(spec), { config, profile: loadProfile(config) });
const fingerprint = createHash('sha256').update(JSON.stringify(records)).digest('hex').slice(0, 12);
console.log(`${requests} requests: records ${fingerprint}`);
if (requests === 30_000 && fingerprint !== EXPECTED_30K) {
  console.error(`expected ${EXPECTED_30K} (docs/twin.md): the twin's records changed`);
  process.exit(1);
}
