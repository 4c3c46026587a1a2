// Benchmark (the NATS-loss goal): `kill -9` of the nats-server a local cluster runs on, under open streams.
//   npm run build && node tools/bench/nats-kill.mjs [--streams 30] [--max-tokens 400] [--runs 3] [--no-kill] [--json FILE]
// Not part of `npm run bench`. A local cluster in the default configuration (FREE_PORT_ARGS) with
// the launcher's supervision on, as `sluice up` runs it. Each run:
// 1. opens --streams streamed completions (`max_tokens` --max-tokens, long enough to outlast the
//    outage) and waits until every one has its first token;
// 2. SIGKILLs the nats-server and, from that instant (t0), sends a 1-token completion every 50 ms
//    (each given up after 2 s) until one is answered 200: "serving again" is that answer's arrival;
// 3. follows every open stream to its end: completed (`data: [DONE]` with no error), ended with an
//    error event (its message), or cut (the connection closed without either), and when, after t0.
// --no-kill runs the same streams with NATS left alone: the baseline of how long they take.
// Goal (docs/benchmarks.md, "NATS killed under open streams"): serving again within 2 s; every stream completes or ends with
// a clear error within 5 s, none at the gateway's 60 s deadline.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { TextDecoder } from 'node:util';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster } from '@sluice/launcher';
import { buildLabel, commandLine } from './bench-run.mjs';

const args = commandLine();
const STREAMS = Number(args.option('streams', '30'));
const MAX_TOKENS = Number(args.option('max-tokens', '400'));
const RUNS = Number(args.option('runs', '3'));
const jsonFile = args.option('json', undefined);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const { AbortSignal } = globalThis;

let natsPid;
const cluster = await startLocalCluster({
  rootDir: REPO_ROOT,
  configArgs: [...FREE_PORT_ARGS],
  warmUpRequests: 200,
  onNatsReady: (nats) => (natsPid = nats.pid),
});
const model = cluster.config.worker.model;
const post = (body, signal) =>
  fetch(`${cluster.gatewayUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, prompt: 'nats-kill', ...body }), signal });

/** One long stream: resolves `started` at its first token, and its end with how it ended. */
function openStream() {
  let markStarted;
  const started = new Promise((resolve) => (markStarted = resolve));
  const ended = (async () => {
    let res;
    try {
      res = await post({ stream: true, max_tokens: MAX_TOKENS }, AbortSignal.timeout(120_000));
    } catch (error) {
      markStarted();
      return { how: 'refused', detail: error.message, at: performance.now() };
    }
    if (res.status !== 200) {
      markStarted();
      return { how: `http-${res.status}`, detail: (await res.text()).slice(0, 120), at: performance.now() };
    }
    const decoder = new TextDecoder();
    let text = '';
    try {
      for await (const chunk of res.body) {
        text += decoder.decode(chunk, { stream: true });
        if (text.includes('data: {')) markStarted();
        if (text.includes('data: [DONE]')) break;
      }
    } catch (error) {
      markStarted();
      return { how: 'cut', detail: error.message, at: performance.now() };
    }
    markStarted();
    const error = /data: (\{"error".*)/.exec(text)?.[1];
    const tokens = text.split('data: {').length - 1;
    if (error) return { how: 'error-event', detail: error.slice(0, 160), at: performance.now(), tokens };
    return { how: text.includes('data: [DONE]') ? 'completed' : 'cut', detail: '', at: performance.now(), tokens };
  })();
  return { started, ended };
}

/** From t0, a 1-token completion every 50 ms until one is answered 200; its arrival time. */
async function servingAgain(t0) {
  for (;;) {
    try {
      const res = await post({ max_tokens: 1 }, AbortSignal.timeout(2_000));
      await res.body?.cancel();
      if (res.status === 200) return performance.now() - t0;
    } catch {
      // not yet
    }
    await sleep(50);
  }
}

const runs = [];
try {
  for (let run = 1; run <= RUNS; run++) {
    const streams = Array.from({ length: STREAMS }, openStream);
    await Promise.all(streams.map((s) => s.started));
    const killed = natsPid;
    const t0 = performance.now();
    if (!args.flag('no-kill')) process.kill(killed, 'SIGKILL');
    const serving = await servingAgain(t0);
    const ends = await Promise.all(streams.map((s) => s.ended));
    const byHow = {};
    for (const end of ends) (byHow[end.how] ??= []).push(end.at - t0);
    const result = {
      run,
      servingAgainMs: Math.round(serving),
      natsRestarted: natsPid !== killed,
      // SSE data events with a payload (the last may carry the usage): fewer than max_tokens means tokens were lost.
      tokensPerStream: { min: Math.min(...ends.map((e) => e.tokens ?? 0)), max: Math.max(...ends.map((e) => e.tokens ?? 0)) },
      streams: Object.fromEntries(Object.entries(byHow).map(([how, at]) => [how, { count: at.length, lastEndMs: Math.round(Math.max(...at)) }])),
      examples: Object.fromEntries(ends.filter((e) => e.detail).map((e) => [e.how, e.detail])),
    };
    runs.push(result);
    console.log(JSON.stringify(result));
    await sleep(1_000);
  }
} finally {
  await cluster.stop();
}

const summary = { benchmark: 'nats-kill', build: buildLabel(REPO_ROOT), streams: STREAMS, maxTokens: MAX_TOKENS, runs };
console.log(`serving again after kill -9 of nats-server: ${runs.map((r) => `${r.servingAgainMs} ms`).join(', ')} (build ${summary.build})`);
if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify(summary, null, 2)}\n`);
