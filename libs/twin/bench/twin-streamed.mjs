// One streamed twin run of the bench's workload, in a process of its own so that its peak resident
// memory is its own:  node libs/twin/bench/twin-streamed.mjs 10000000
// The workload is read lazily from its generator (`generateWorkload`), each request when the one
// before it arrives, and each record is counted as it settles and dropped (`simulateStreamed`), so
// memory holds the requests in flight, not the run. Generation is inside the timed run here (it
// cannot be apart from it). Prints one JSON line: what twin.bench.mjs puts in its row.
import { performance } from 'node:perf_hooks';
import { loadProfile } from '@sluice/config';
import { generateWorkload } from '@sluice/workload';
import { benchConfig, benchSpec } from './bench-workload.mjs';
import { simulateStreamed } from '../dist/index.js';

const n = Number(process.argv[2]);
if (!Number.isInteger(n) || n < 1) throw new Error(`usage: twin-streamed.mjs REQUESTS (a whole number ≥ 1), got ${process.argv[2]}`);
const config = benchConfig();
const options = { config, profile: loadProfile(config) };

let completed = 0;
let settled = 0;
let lastEndMs = 0;
// Progress on stderr every million records: a ten-million run takes minutes.
const PROGRESS_EVERY = 1_000_000;
const sink = (record) => {
  if (record.outcome === 'completed') completed++;
  if (record.endMs > lastEndMs) lastEndMs = record.endMs;
  if (++settled % PROGRESS_EVERY === 0) {
    const rssGiB = (process.memoryUsage.rss() / 2 ** 30).toFixed(2);
    console.error(`twin-streamed: ${settled} records, ${((performance.now() - started) / 1000).toFixed(1)} s, ${rssGiB} GiB resident`);
  }
};
const started = performance.now();
const cpuBefore = process.cpuUsage();
const result = simulateStreamed(generateWorkload(benchSpec(n)), sink, options);
const twinS = (performance.now() - started) / 1000;
// CPU time beside the wall time: on a shared machine the wall time counts the other tenants too.
const cpu = process.cpuUsage(cpuBefore);
const cpuS = (cpu.user + cpu.system) / 1e6;
if (completed !== n) throw new Error(`twin completed ${completed} of ${n}`);
// ru_maxrss, in KiB on Linux: the most this process was ever resident.
console.log(JSON.stringify({ n, twinS, cpuS, events: result.events, virtualS: lastEndMs / 1000, peakRssBytes: process.resourceUsage().maxRSS * 1024 }));
