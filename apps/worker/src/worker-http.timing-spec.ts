import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpHeaders } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { modelTimingFigures, modelTimingViolations, QWEN3_14B_512_IN_64_OUT, readTimedStream, type TimedStream } from '@sluice/testing';

/**
 * The model's numbers on an instance's own HTTP port (worker.http) at timeScale 1: the same engine
 * as over the bus, so the same figures as model-timing.timing-spec.ts, with one HTTP hop instead
 * of the pipeline. For a 512-token prompt and 64 output tokens on qwen3-14b (docs/behaviour.md §1):
 *   queueing delay  α0 + α1·512 =  8 982 µs; prefill step β0 + β1·512 = 33 773 µs → TTFT 42 755 µs
 *   decode step     β0 + β2·1   = 13 605 µs × 63 → 857.115 ms from the first token to the last
 * The checks and their bounds are model-timing's, one function for both (`modelTimingViolations`,
 * libs/testing): the instance's own TTFT and decode from the timings it reports when asked, the
 * median gap between token chunks at the client, the client's TTFT at least the model's. What the
 * HTTP hop adds is printed, not bounded.
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
    const found = modelTimingFigures(runs);
    const model = QWEN3_14B_512_IN_64_OUT;
    console.log(
      `worker.http: instance TTFT ${found.workerTtftMs.toFixed(2)} ms (model ${model.ttftMs}), client TTFT ${found.clientTtftMs.toFixed(2)} ms ` +
        `(+${(found.clientTtftMs - model.ttftMs).toFixed(2)} ms the hop), instance decode ${found.workerDecodeMs.toFixed(1)} ms (model ${model.decodeMs}), median token gap ${found.tokenGapMs.toFixed(2)} ms`,
    );
    expect(modelTimingViolations(found)).toEqual([]);
  });
});
