// Captures the messages a real cluster sends, to check the edge's fast validators on them and to
// count which kinds a request makes (which validators matter).
//   npm run build && node libs/contracts/bench/capture-messages.mjs [--requests 200] [--out FILE]
// A local cluster of this checkout's build (4 worker instances at timeScale 1000, NATS without
// auth), one listener on every subject: 1-token and 8-token completions of the 8-word prompt,
// streamed and not, and 8-token completions of a 64-word prompt (full KV blocks: KV events), a
// quarter each, sent at 50/s. Prints the messages per request by kind; --out writes the first few of each kind
// (JSON: { kind: [payload, …] }), as libs/contracts/src/fast-path/real-messages.json holds them.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connect } from '@nats-io/transport-node';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const { commandLine } = await import(pathToFileURL(join(ROOT, 'tools/bench/bench-run.mjs')).href);
const { completionRequest, createAgent, runOpenLoop, waitIdle } = await import(pathToFileURL(join(ROOT, 'tools/bench/live/load-generator.mjs')).href);
const { FREE_PORT_ARGS, startLocalCluster } = await import(pathToFileURL(join(ROOT, 'libs/launcher/dist/index.js')).href);
const { option } = commandLine();
const requests = Number(option('requests', 200));
const out = option('out', undefined);
const KEEP = 4;

/** The kind of a message: what its subject and payload say it is. */
function kindOf(subject, payload) {
  const parts = subject.split('.');
  if (parts[2] === 'inbox') return `inbox:${payload.type}`;
  if (parts[2] === 'direct' || subject.startsWith('_INBOX')) return 'reply';
  if (parts[parts.length - 1] === 'submit') return `${parts[2]}.submit`;
  return parts.slice(2).filter((p, i) => i === 0 || !/[0-9]/.test(p)).join('.');
}

const cluster = await startLocalCluster({
  rootDir: ROOT,
  configArgs: ['--nats.auth=false', ...FREE_PORT_ARGS, '--worker.instances=4', '--worker.timeScale=1000'],
  parallel: true,
  warmUpRequests: 20,
});
const counts = new Map();
const kept = {};
try {
  await waitIdle(cluster.gatewayUrl);
  const nc = await connect({ servers: cluster.natsUrl });
  nc.subscribe('>', {
    callback: (error, msg) => {
      if (error || msg.subject.startsWith('_INBOX')) return;
      let payload;
      try {
        payload = msg.json();
      } catch {
        return;
      }
      const kind = kindOf(msg.subject, payload);
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      if ((kept[kind] ??= []).length < KEEP) kept[kind].push(payload);
    },
  });
  await nc.flush();
  const url = new URL(cluster.gatewayUrl);
  const agent = createAgent({ maxSockets: 64 });
  const longPrompt = Array.from({ length: 64 }, (_, i) => `word${i}`).join(' ');
  const shapes = [completionRequest({ maxTokens: 1 }), completionRequest({ maxTokens: 8 }), completionRequest({ maxTokens: 8, stream: true }), completionRequest({ maxTokens: 8, prompt: longPrompt })];
  for (const request of shapes) await runOpenLoop({ url, agent, request, rate: 50, seconds: requests / 50 / shapes.length });
  await waitIdle(cluster.gatewayUrl);
  await nc.flush();
  await nc.close();
  const rows = [...counts].sort((a, b) => b[1] - a[1]);
  process.stdout.write(`messages per request (${requests} requests, a quarter each of max_tokens 1, 8, 8 streamed, 8 with a 64-word prompt):\n`);
  for (const [kind, n] of rows) process.stdout.write(`  ${kind.padEnd(36)} ${(n / requests).toFixed(2)}\n`);
  if (out) writeFileSync(out, `${JSON.stringify(kept, null, 1)}\n`);
} finally {
  await cluster.stop();
}
