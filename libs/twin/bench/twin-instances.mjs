// The twin's cost against the number of instances:  node libs/twin/bench/twin-instances.mjs INSTANCES REQUESTS
// The bench's workload (bench-workload.mjs, Poisson 120 requests/s) streamed through INSTANCES
// instances of qwen3-14b with `weighted` routing: 250 instances a worker process (the config's
// most is 256), so 10,000 is 40 processes. Prints one JSON line: wall and CPU seconds, events,
// peak resident MiB. At a fixed rate more instances only add idle ones: what it measures is what
// each instance costs the cluster around it (snapshots, the router's scan, engine state).
import { performance } from 'node:perf_hooks';
import { loadConfig, loadProfile } from '@sluice/config';
import { generateWorkload } from '@sluice/workload';
import { benchSpec } from './bench-workload.mjs';
import { simulateStreamed } from '../dist/index.js';
const [instances, n] = process.argv.slice(2).map(Number);
const perProcess = Math.min(instances, 250);
const config = loadConfig({ env: {}, argv: ['--router.policy=weighted', `--worker.instances=${perProcess}`, `--worker.processes=${instances / perProcess}`] });
const t = performance.now(); const c0 = process.cpuUsage();
let done = 0;
const r = simulateStreamed(generateWorkload(benchSpec(n)), () => done++, { config, profile: loadProfile(config) });
const cpu = process.cpuUsage(c0);
console.log(JSON.stringify({ instances, n, wallS: (performance.now() - t) / 1000, cpuS: (cpu.user + cpu.system) / 1e6, events: r.events, peakRssMiB: process.resourceUsage().maxRSS / 1024 }));
