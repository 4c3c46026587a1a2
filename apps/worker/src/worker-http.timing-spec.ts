import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpHeaders } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { medianTokenGapMs, readTimedStream, type TimedStream } from '@sluice/testing';

/**
 * The model's numbers on an instance's own HTTP port (worker.http) at timeScale 1: the same engine
 * as over the bus, so the same figures as model-timing.timing-spec.ts, with one HTTP hop instead
 * of the pipeline. For a 512-token prompt and 64 output tokens on qwen3-14b (docs/behaviour.md §1):
 *   queueing delay  α0 + α1·512 =  8 982 µs; prefill step β0 + β1·512 = 33 773 µs → TTFT 42 755 µs
 *   decode step     β0 + β2·1   = 13 605 µs × 63 → 857.115 ms from the first token to the last
 * The checks and their bounds are model-timing's: the instance's own TTFT (queue + prefill, from
 * the timings it reports when asked) within −0.1/+3 ms; its own decode within −0.1/+8 ms; the
 * median gap between token chunks at the client one decode step, −1/+2 ms; the client's TTFT at
 * least the model's. What the HTTP hop adds is printed, not bounded.
 */
const PORT = 18350;
let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    configArgs: [...FREE_PORT_ARGS, '--worker.instances=1', '--worker.timeScale=1', '--worker.http.enabled=true', `--worker.http.basePort=${PORT}`],
    readyTimeoutMs: 80_000,
  });
});

afterAll(() => cluster?.stop());

const MODEL_TTFT_MS = 42.755;
const MODEL_DECODE_MS = 857.115;
/** One decode step: β0 + β2·1. */
const MODEL_STEP_MS = 13.605;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(seed: number): Promise<TimedStream> {
  // Fresh token ids per request: no prefix-cache hit shortens the prefill.
  const prompt = Array.from({ length: 512 }, (_, i) => (seed * 7919 + i * 104729) % 128000);
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${PORT}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [httpHeaders.reportTimings]: '1' },
    body: JSON.stringify({ model: 'qwen3-14b', prompt, max_tokens: 64, stream: true }),
  });
  return readTimedStream(res, started);
}

describe("a single request on an instance's own port at timeScale 1", () => {
  it('shows the modelled TTFT and decode, as over the bus', async () => {
    await measure(1); // warm the connection and the JIT
    const runs = [];
    for (let seed = 2; seed < 7; seed++) runs.push(await measure(seed));
    for (const run of runs) expect(run.chunks).toBe(64);
    const workerTtft = median(runs.map((r) => r.workerTtftMs));
    const clientTtft = median(runs.map((r) => r.ttftMs));
    const decode = median(runs.map((r) => r.e2eMs - r.ttftMs));
    console.log(`worker.http: instance TTFT ${workerTtft.toFixed(2)} ms (model ${MODEL_TTFT_MS}), client TTFT ${clientTtft.toFixed(2)} ms (+${(clientTtft - MODEL_TTFT_MS).toFixed(2)} ms the hop), client decode span ${decode.toFixed(1)} ms (model ${MODEL_DECODE_MS}), median token gap ${median(runs.map(medianTokenGapMs)).toFixed(2)} ms`);
    expect(workerTtft).toBeGreaterThanOrEqual(MODEL_TTFT_MS - 0.1);
    expect(workerTtft).toBeLessThanOrEqual(MODEL_TTFT_MS + 3);
    expect(clientTtft).toBeGreaterThanOrEqual(MODEL_TTFT_MS);
    const workerDecode = median(runs.map((r) => r.workerDecodeMs));
    expect(workerDecode).toBeGreaterThanOrEqual(MODEL_DECODE_MS - 0.1);
    expect(workerDecode).toBeLessThanOrEqual(MODEL_DECODE_MS + 8);
    const gap = median(runs.map(medianTokenGapMs));
    expect(gap).toBeGreaterThanOrEqual(MODEL_STEP_MS - 1);
    expect(gap).toBeLessThanOrEqual(MODEL_STEP_MS + 2);
  });
});
