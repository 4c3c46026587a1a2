// The edge's schema check, zod against the fast validators, on messages a real cluster sent:
//   npm run build && node libs/contracts/bench/fast-validators.bench.mjs
// For each hot kind (libs/contracts/src/fast-path/real-messages.json, captured by
// capture-messages.mjs), ns per message of: JSON.parse of its bytes (the baseline every edge pays
// either way), zod's safeParse, and the fast validator, all in this one process on the same
// messages. Every figure is the median of REPS timed repetitions of BATCH messages each, after
// WARMUP untimed ones.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { InboxFrameSchema, InferenceRequestSchema, KvEventSchema, LoadSnapshotSchema, RequestDoneSchema, fastValidatorOf } from '../dist/index.js';

const WARMUP = 5;
const REPS = 21;
const BATCH = 20_000;
const KINDS = [
  ['request handoff', 'router.submit', InferenceRequestSchema],
  ['held frame', 'inbox:held', InboxFrameSchema],
  ['end frame', 'inbox:end', InboxFrameSchema],
  ['tokens-batch frame', 'inbox:tokens-batch', InboxFrameSchema],
  ['load snapshot', 'worker.load', LoadSnapshotSchema],
  ['done event', 'worker.done', RequestDoneSchema],
  ['KV event', 'worker.kv', KvEventSchema],
];
const captured = JSON.parse(readFileSync(new URL('../src/fast-path/real-messages.json', import.meta.url), 'utf8'));

let sink = 0; // keeps results alive so nothing is optimised away

/** Median ns per message of `run` over `inputs` (BATCH calls per repetition, cycling through them). */
function nsPerMessage(inputs, run) {
  const times = [];
  for (let rep = 0; rep < WARMUP + REPS; rep++) {
    const t0 = performance.now();
    for (let i = 0; i < BATCH; i++) sink += run(inputs[i % inputs.length]) ? 1 : 0;
    const ns = ((performance.now() - t0) * 1e6) / BATCH;
    if (rep >= WARMUP) times.push(ns);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

const rows = [];
for (const [label, kind, schema] of KINDS) {
  const messages = captured[kind];
  const texts = messages.map((m) => JSON.stringify(m));
  const parsed = texts.map((t) => JSON.parse(t));
  const fast = fastValidatorOf(schema);
  if (!parsed.every((m) => fast(m))) throw new Error(`the fast validator refuses a captured ${kind} message`);
  const json = nsPerMessage(texts, (t) => JSON.parse(t));
  const zod = nsPerMessage(parsed, (m) => schema.safeParse(m).success);
  const quick = nsPerMessage(parsed, (m) => fast(m));
  rows.push({ label, bytes: Math.round(texts.reduce((n, t) => n + t.length, 0) / texts.length), json, zod, quick });
}

const pad = (s, n) => String(s).padStart(n);
process.stdout.write(`node ${process.version}, load average ${loadavg()[0].toFixed(2)}; ns per message, median of ${REPS} × ${BATCH}\n`);
process.stdout.write(`${'message'.padEnd(20)}${pad('bytes', 7)}${pad('JSON.parse', 12)}${pad('zod', 9)}${pad('fast', 9)}${pad('zod/fast', 10)}${pad('fast/JSON', 11)}\n`);
for (const r of rows) {
  process.stdout.write(`${r.label.padEnd(20)}${pad(r.bytes, 7)}${pad(r.json.toFixed(0), 12)}${pad(r.zod.toFixed(0), 9)}${pad(r.quick.toFixed(0), 9)}${pad((r.zod / r.quick).toFixed(1), 10)}${pad((r.quick / r.json).toFixed(2), 11)}\n`);
}
if (sink < 0) process.stdout.write('');
