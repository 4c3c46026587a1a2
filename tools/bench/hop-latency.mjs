// Benchmark: what a pipeline hop costs, against raw NATS measured in the same run.
//   npm run build && node tools/bench/hop-latency.mjs [--n 2000]
// 1. raw NATS request/reply round trip (nats.js, no payload logic): the baseline;
// 2. one sluice handoff (JSON + zod validation + W3C trace headers + ack): ratio to 1;
// 3. a whole request through gateway → admission → flow → router → worker with max_tokens=1 and
//    an engine at timeScale 1000 (steps of 14–34 µs), measured by an HTTP client: ratio to 4 raw round trips + the inbox hop.
import { performance } from 'node:perf_hooks';
import { Bus } from '@sluice/bus';
import { InferenceRequestSchema } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, startNats } from '@sluice/launcher';
import { benchInferenceRequest, openRawEcho } from './raw-nats.mjs';

const n = Number(process.argv[process.argv.indexOf('--n') + 1]) || 2000;
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  const rank = (p / 100) * (s.length - 1);
  const lo = Math.floor(rank);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (rank - lo);
};
const summary = (xs) => ({ p50: pct(xs, 50), p99: pct(xs, 99) });
const fmt = (ms) => `${(ms * 1000).toFixed(0)} µs`;

const cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, '--worker.timeScale=1000', '--worker.instances=1'], parallel: true });
try {
  const request = benchInferenceRequest();
  const payload = JSON.stringify(request);

  // 1. raw NATS, and 2. the sluice handoff, on a nats-server of their own: the cluster's bus admits
  // only its services' identities (nats.auth), none of which may use the benchmark's subjects.
  const baselineNats = await startNats();
  const echo = await openRawEcho(baselineNats.url);
  const raw = await echo.sequential(payload, n);

  // 2. sluice handoff
  const serving = await Bus.connect({ url: baselineNats.url, name: 'bench-serve', ackTimeoutMs: 2000 });
  const sending = await Bus.connect({ url: baselineNats.url, name: 'bench-send', ackTimeoutMs: 2000 });
  serving.serve('bench.handoff', InferenceRequestSchema, () => undefined);
  await serving.flush();
  const handoff = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const result = await sending.handoff('bench.handoff', request, request.id);
    if (!result.ok) throw new Error(result.message);
    handoff.push(performance.now() - t);
  }

  // 3. whole pipeline over HTTP
  const e2e = [];
  const body = JSON.stringify({ model: 'qwen3-14b', prompt: Array.from({ length: 128 }, (_, i) => i), max_tokens: 1 });
  for (let i = 0; i < Math.min(n, 500); i++) {
    const t = performance.now();
    const res = await fetch(`${cluster.gatewayUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await res.text();
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    e2e.push(performance.now() - t);
  }

  const r = summary(raw);
  const h = summary(handoff);
  const e = summary(e2e);
  console.log(`hop latency benchmark (n=${n}, node ${process.version})`);
  console.log(`raw NATS request/reply     p50 ${fmt(r.p50)}  p99 ${fmt(r.p99)}  (baseline)`);
  console.log(`sluice handoff             p50 ${fmt(h.p50)}  p99 ${fmt(h.p99)}  ${(h.p50 / r.p50).toFixed(2)}× raw at p50`);
  console.log(`HTTP request, 4 hops + 0.1 ms step  p50 ${fmt(e.p50)}  p99 ${fmt(e.p99)}  ${(e.p50 / (5 * r.p50)).toFixed(2)}× five raw round trips at p50`);
  await Promise.all([echo.close(), serving.drain(), sending.drain()]);
  await baselineNats.stop();
} finally {
  await cluster.stop();
}
