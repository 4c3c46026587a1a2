// The raw NATS baseline the benchmarks measure against: a responder and a client on their own
// connections, and a representative InferenceRequest as payload. Used by hop-latency.mjs and
// live-path.mjs, so both compare against the same thing.
import { performance } from 'node:perf_hooks';
import { connect } from '@nats-io/transport-node';

const SUBJECT = 'bench.raw';

/** A representative InferenceRequest (~430 B of JSON, block hashes as numbers). */
export function benchInferenceRequest() {
  return {
    id: 'bench-1', model: 'qwen3-14b', inputTokens: 128, blockHashes: Array.from({ length: 8 }, (_, i) => 4_503_599_627_370_496 + i),
    maxTokens: 1, sloClass: 'standard', priority: 3, fairnessId: 'default', arrivalUs: Date.now() * 1_000, deadlineUs: (Date.now() + 60_000) * 1_000,
    attempt: 0, gatewayId: 'gw-bench', replyTo: 'sluice.v1.inbox.gw-bench.bench-1', timings: {},
  };
}

/** A responder that acks at once, and a client that asks it: `roundTrip()` is one raw request/reply. */
export async function openRawEcho(natsUrl) {
  const server = await connect({ servers: natsUrl });
  const client = await connect({ servers: natsUrl });
  server.subscribe(SUBJECT, { callback: (_, msg) => void msg.respond('{"ok":true}') });
  await server.flush();
  return {
    roundTrip: (payload, timeoutMs = 2_000) => client.request(SUBJECT, payload, { timeout: timeoutMs }),
    /** `n` round trips one after another: each one's ms. */
    async sequential(payload, n) {
      const times = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await client.request(SUBJECT, payload, { timeout: 2_000 });
        times.push(performance.now() - t);
      }
      return times;
    },
    close: () => Promise.all([server.close(), client.close()]),
  };
}

