// Benchmark (issue goal: file descriptors): idle keep-alive sockets from several loopback addresses
// against a gateway in the default configuration, and whether a normal client is still served.
//   npm run build && node tools/bench/idle-flood.mjs [--addresses 5] [--per-address 3800] [--requests 50]
// Not part of `npm run bench` (it holds ~20 000 sockets on purpose).
// 1. baseline: --requests sequential 1-token completions from 127.0.0.1, each on a new connection;
// 2. flood: --per-address sockets from each of 127.0.0.2 … (every one sends GET /healthz, reads the
//    answer and stays open, idle), opened 500 at a time; what each was answered (200, 429
//    too_many_connections, 503 connection_limit, a reset), and how many the gateway closed since;
// 3. during the flood: the gateway's open file descriptors (/proc/<pid>/fd), the same completions
//    from 127.0.0.1 again, its refusal counters, and how many log lines the refusals cost.
// The client process needs a file-descriptor limit above addresses × per-address (ulimit -n).
import { readdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster } from '@sluice/launcher';

const option = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const ADDRESSES = option('addresses', 5);
const PER_ADDRESS = option('per-address', 3_800);
const REQUESTS = option('requests', 50);
const BATCH = 500;

const logLines = [];
const cluster = await startLocalCluster({
  rootDir: REPO_ROOT,
  configArgs: [...FREE_PORT_ARGS, '--worker.instances=1'],
  parallel: true,
  onLine: (service, line) => service === 'gateway' && logLines.push(line),
});
const gateway = cluster.services.find((s) => s.name === 'gateway');
const port = Number(new URL(cluster.gatewayUrl).port);

async function completions(n) {
  const latencies = [];
  const statuses = {};
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const status = await fetch(`${cluster.gatewayUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ model: 'qwen3-14b', prompt: [1, 2, 3], max_tokens: 1 }),
    }).then(async (res) => (await res.arrayBuffer(), res.status), (error) => error.cause?.code ?? 'error');
    latencies.push(performance.now() - started);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
  return { statuses, p50: at(0.5), p99: at(0.99) };
}

/** A socket from `localAddress` that asked GET /healthz and idles; `closedByServer` turns true if the gateway closes it. */
function idleSocket(localAddress) {
  return new Promise((resolve) => {
    const entry = { socket: undefined, status: 'reset', closedByServer: false };
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    entry.socket = socket;
    socket.on('error', () => undefined);
    socket.once('data', (chunk) => {
      entry.status = /^HTTP\/1\.1 (\d+)/.exec(chunk.toString())?.[1] ?? 'garbage';
      resolve(entry);
    });
    socket.once('close', () => {
      entry.closedByServer = true;
      resolve(entry);
    });
  });
}

const fds = async () => (await readdir(`/proc/${gateway.pid}/fd`)).length;
const metric = async (name) => {
  const text = await (await fetch(`${cluster.gatewayUrl}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith(name)).map((l) => l.replace(/^\S*?\{/, '{')).join(' ');
};
const softLimit = (await readFile(`/proc/${gateway.pid}/limits`, 'utf8')).match(/^Max open files\s+(\d+)/m)?.[1];

try {
  const baseline = await completions(REQUESTS);
  const fdsBefore = await fds();
  const started = performance.now();
  const flood = [];
  for (let a = 0; a < ADDRESSES; a++) {
    const address = `127.0.0.${a + 2}`;
    for (let i = 0; i < PER_ADDRESS; i += BATCH) {
      flood.push(...(await Promise.all(Array.from({ length: Math.min(BATCH, PER_ADDRESS - i) }, () => idleSocket(address)))));
    }
  }
  const floodSeconds = ((performance.now() - started) / 1000).toFixed(1);
  const fdsPeak = await fds();
  const during = await completions(REQUESTS);
  const answered = {};
  for (const s of flood) answered[s.status] = (answered[s.status] ?? 0) + 1;
  const closed = flood.filter((s) => s.closedByServer).length;
  const refusedLines = logLines.filter((l) => /refused/.test(l));
  console.log(`gateway open-file limit ${softLimit}; flood: ${ADDRESSES} addresses × ${PER_ADDRESS} idle sockets in ${floodSeconds} s`);
  console.log(`  answered: ${JSON.stringify(answered)}; closed by the gateway since: ${closed}`);
  console.log(`  gateway fds: ${fdsBefore} before, ${fdsPeak} at the peak`);
  console.log(`  completions from 127.0.0.1 before: ${JSON.stringify(baseline)}`);
  console.log(`  completions from 127.0.0.1 during: ${JSON.stringify(during)}`);
  console.log(`  ${await metric('sluice_gateway_connections_refused_total')}`);
  console.log(`  log lines about refusals: ${refusedLines.length}`);
  for (const line of refusedLines.slice(0, 6)) console.log(`    ${line.slice(0, 200)}`);
  for (const s of flood) s.socket.destroy();
} finally {
  await cluster.stop();
}
