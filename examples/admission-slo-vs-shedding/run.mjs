// Experiment: SLO-predictive admission against load-based shedding on the same overload.
//   npm run build && node examples/admission-slo-vs-shedding/run.mjs [--rate 30] [--seconds 20] [--seed 42]
//
// Hypothesis (BLIS H14-1): an admission gate that predicts each request's TTFT and compares it
// with its SLO class's budget admits more requests than shedding on a load signal, at the same
// TTFT p99 for the critical class, because it sheds only the classes that can be shed.
//
// One live cluster per arm (2 qwen3-14b instances at timeScale 1), the same seeded open-loop
// workload (Poisson arrivals; 2048-token prompts, 32 output tokens; 20% critical, 40% standard,
// 40% sheddable) sent as a real streaming client. Only the admission policy differs.
// The same experiment runs in the twin as examples/workloads/predictive-admission.yaml (README.md).
import { performance } from 'node:perf_hooks';
import { seededRandom } from '@sluice/collections';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster } from '@sluice/launcher';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const RATE = arg('rate', 30);
const SECONDS = arg('seconds', 20);
const SEED = arg('seed', 42);
const PROMPT_TOKENS = 2048;
const OUTPUT_TOKENS = 32;
const CLASSES = [
  ['critical', 0.2],
  ['standard', 0.4],
  ['sheddable', 0.4],
];

// A 2048-token prefill is one step of β0 + β1·2048 ≈ 94.4 ms on qwen3-14b, so each request
// waiting ahead of a new one delays its first token by about that much.
const ARMS = [
  {
    name: 'busy-threshold (shed when every worker has > 4096 prefill tokens in flight)',
    args: ['--admission.policy=busy-threshold', '--admission.policies.busy-threshold.activePrefillTokensThreshold=4096'],
  },
  {
    name: 'slo-predictive (budgets: 250 ms for every class)',
    args: [
      '--admission.policy=slo-predictive',
      '--admission.policies.slo-predictive.avgStepTimeUs=94400',
      '--admission.policies.slo-predictive.budgetsUs.critical=250000',
      '--admission.policies.slo-predictive.budgetsUs.standard=250000',
      '--admission.policies.slo-predictive.budgetsUs.sheddable=250000',
    ],
  },
];

function workload() {
  // The seeded source the whole project uses, so both arms get the same workload.
  const random = seededRandom(SEED);
  const requests = [];
  for (let atMs = 0; atMs < SECONDS * 1000; ) {
    atMs += (-Math.log(1 - random()) / RATE) * 1000;
    let pick = random();
    const sloClass = CLASSES.find(([, share]) => (pick -= share) < 0)?.[0] ?? 'standard';
    const prompt = Array.from({ length: PROMPT_TOKENS }, () => Math.floor(random() * 128_000));
    requests.push({ atMs, sloClass, prompt });
  }
  return requests;
}

async function send(gatewayUrl, request) {
  const started = performance.now();
  const res = await fetch(`${gatewayUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sluice-slo-class': request.sloClass },
    body: JSON.stringify({ model: 'qwen3-14b', prompt: request.prompt, max_tokens: OUTPUT_TOKENS, stream: true }),
  });
  if (res.status !== 200) {
    await res.text();
    return { sloClass: request.sloClass, status: res.status };
  }
  const reader = res.body.getReader();
  let ttftMs;
  for (;;) {
    const { done } = await reader.read();
    ttftMs ??= performance.now() - started;
    if (done) break;
  }
  return { sloClass: request.sloClass, status: 200, ttftMs };
}

const percentile = (xs, p) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function runArm(arm, requests) {
  const cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, '--worker.instances=2', ...arm.args] });
  try {
    // A few light requests so every process has compiled its hot paths before the clock starts.
    for (let i = 0; i < 10; i++) await send(cluster.gatewayUrl, { sloClass: 'critical', prompt: [i, 1, 2, 3] });
    const t0 = performance.now();
    const pending = requests.map(async (r) => {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, r.atMs - (performance.now() - t0))));
      return send(cluster.gatewayUrl, r);
    });
    return await Promise.all(pending);
  } finally {
    await cluster.stop();
  }
}

const requests = workload();
console.log(`workload: ${requests.length} requests over ${SECONDS} s (${RATE}/s Poisson, seed ${SEED}), ${PROMPT_TOKENS}-token prompts, ${OUTPUT_TOKENS} output tokens`);
console.log('capacity: 2 instances × ~10 prefills/s of 2048 tokens ≈ 20 requests/s\n');
const summary = [];
for (const arm of ARMS) {
  const results = await runArm(arm, requests);
  console.log(arm.name);
  console.log(`  ${'class'.padEnd(10)}${'sent'.padStart(6)}${'admitted'.padStart(10)}${'rejected'.padStart(10)}${'TTFT p50'.padStart(11)}${'TTFT p99'.padStart(11)}`);
  const row = { arm: arm.name, classes: {} };
  for (const [sloClass] of CLASSES) {
    const mine = results.filter((r) => r.sloClass === sloClass);
    const ok = mine.filter((r) => r.status === 200);
    const ttfts = ok.map((r) => r.ttftMs);
    const p50 = percentile(ttfts, 50);
    const p99 = percentile(ttfts, 99);
    row.classes[sloClass] = { sent: mine.length, admitted: ok.length, p50, p99 };
    console.log(`  ${sloClass.padEnd(10)}${String(mine.length).padStart(6)}${String(ok.length).padStart(10)}${String(mine.length - ok.length).padStart(10)}${p50.toFixed(0).padStart(8)} ms${p99.toFixed(0).padStart(8)} ms`);
  }
  const admitted = results.filter((r) => r.status === 200).length;
  const statuses = [...new Set(results.map((r) => r.status))].sort().join(', ');
  console.log(`  total admitted ${admitted} of ${results.length} (statuses seen: ${statuses})\n`);
  summary.push({ ...row, admitted });
}
const [shedding, predictive] = summary;
console.log(
  `H14-1: slo-predictive admitted ${predictive.admitted} vs ${shedding.admitted} (${((predictive.admitted / shedding.admitted - 1) * 100).toFixed(0)}%), ` +
    `critical TTFT p99 ${predictive.classes.critical.p99.toFixed(0)} ms vs ${shedding.classes.critical.p99.toFixed(0)} ms`,
);
