// Benchmark: CPU per request of the whole cluster (every service and nats-server), and a paired
// comparison of two builds.
//   npm run build && node tools/bench/hot-path/cpu-per-request.mjs [--rate 1000] [--seconds 5] [--rounds 3]
//        [--root CHECKOUT] [--vs OTHER_CHECKOUT] [--pairs 3] [--profile DIR]
// A local cluster of a checkout's build (16 worker instances at timeScale 1000, `max_tokens` 1, an
// 8-token prompt, as live-path.mjs), warmed, then open-loop rounds at --rate. Each round's figure is
// the CPU every process used from the first send until every answer was back and the cluster idle,
// divided by the answers: the cost of a request even on a machine too busy to keep up with the
// rate (CPU over the send window ÷ the rate, live-path.mjs's reading, measures the machine's share
// instead once the cluster falls behind). --root: the checkout to measure (default this one; it
// needs a build). With --vs the two checkouts run in turn, --root's first,
// --pairs times each (A B A B …), each in its own process, and the medians and the paired ratios
// are printed. --profile DIR: a CPU profile of each service over the rounds (loaded with
// profile-toggle.mjs; summarise one with summarise-profile.mjs).
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildLabel, commandLine } from '../bench-run.mjs';
import { completionRequest, cpuSeconds, createAgent, isOk, runOpenLoop, stats, waitIdle } from '../live/load-generator.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const THIS_CHECKOUT = resolve(HERE, '../../..');
const { option } = commandLine();
const rate = Number(option('rate', 1000));
const seconds = Number(option('seconds', 5));
const rounds = Number(option('rounds', 3));
const one = option('one', undefined);

if (one !== undefined) await measure(one);
else await compare(resolve(option('root', THIS_CHECKOUT)), option('vs', undefined) && resolve(option('vs', undefined)), Number(option('pairs', 3)));

/** One cluster of `root`'s build: a JSON line per round on stdout. */
async function measure(root) {
  const { FREE_PORT_ARGS, startLocalCluster } = await import(pathToFileURL(join(root, 'libs/launcher/dist/index.js')).href);
  const profileDir = option('profile', undefined);
  const env = {};
  if (profileDir) {
    mkdirSync(profileDir, { recursive: true });
    env.NODE_OPTIONS = `--import ${pathToFileURL(join(HERE, 'profile-toggle.mjs')).href}`;
    env.HOT_PATH_PROFILE_DIR = resolve(profileDir);
  }
  let natsPid;
  const cluster = await startLocalCluster({
    rootDir: root,
    env,
    onNatsReady: (nats) => (natsPid = nats.pid),
    configArgs: [...FREE_PORT_ARGS, '--worker.instances=16', '--worker.timeScale=1000'],
    parallel: true,
    warmUpRequests: 200,
  });
  try {
    const url = new URL(cluster.gatewayUrl);
    const request = completionRequest({ maxTokens: 1 });
    const agent = createAgent({ maxSockets: 256 });
    await runOpenLoop({ url, agent, request, rate: Math.min(rate, 500), seconds: 2 });
    await waitIdle(cluster.gatewayUrl);
    const processes = cluster.processes();
    const pids = Object.fromEntries(processes.map((p) => [p.name, p.pid]));
    if (natsPid !== undefined) pids.nats = natsPid;
    const toggleProfiles = () => profileDir && processes.forEach((p) => process.kill(p.pid, 'SIGUSR2'));
    toggleProfiles();
    for (let round = 0; round < rounds; round++) {
      const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
      const run = await runOpenLoop({ url, agent, request, rate, seconds });
      await waitIdle(cluster.gatewayUrl);
      const ok = run.records.filter(isOk);
      const perProcess = {};
      let total = 0;
      for (const [name, pid] of Object.entries(pids)) {
        const ms = ((cpuSeconds(pid) - before[name]) / ok.length) * 1000;
        perProcess[name] = Number(ms.toFixed(4));
        total += ms;
      }
      const latency = stats(ok.map((r) => r.latencyMs));
      const line = { build: buildLabel(root), root, round, rate, answered: ok.length, errors: run.records.length - ok.length, cpuMsPerRequest: Number(total.toFixed(4)), perProcess, p50Ms: latency.p50, p99Ms: latency.p99, load1: loadavg()[0] };
      process.stdout.write(`${JSON.stringify(line)}\n`);
      await sleep(300);
    }
    toggleProfiles();
    if (profileDir) await sleep(2000); // each service writes its profile
    agent.destroy();
  } finally {
    await cluster.stop();
  }
}

/** Runs `a` (and `b`, alternated) in child processes and prints the medians and paired ratios. */
async function compare(a, b, pairs) {
  const own = ['--root', '--vs', '--pairs'];
  const passOn = process.argv.slice(2).filter((arg, i, all) => !own.includes(arg) && !own.includes(all[i - 1]));
  const lines = { A: [], B: [] };
  for (let pair = 0; pair < (b ? pairs : 1); pair++) {
    for (const [side, root] of b ? [['A', a], ['B', b]] : [['A', a]]) {
      const got = await runChild(root, passOn);
      lines[side].push(...got);
      for (const line of got) process.stderr.write(`${side} ${line.build} round ${line.round}: ${line.cpuMsPerRequest.toFixed(3)} ms CPU/request, p50 ${line.p50Ms?.toFixed(1)} ms, p99 ${line.p99Ms?.toFixed(1)} ms, ${line.errors} errors, load ${line.load1.toFixed(1)}\n`);
    }
  }
  const median = (xs) => stats(xs).p50;
  const summary = (side) => {
    const runs = lines[side];
    const names = Object.keys(runs[0]?.perProcess ?? {});
    return {
      build: runs[0]?.build,
      rounds: runs.length,
      cpuMsPerRequest: median(runs.map((r) => r.cpuMsPerRequest)),
      perProcess: Object.fromEntries(names.map((n) => [n, median(runs.map((r) => r.perProcess[n]))])),
      p50Ms: median(runs.map((r) => r.p50Ms)),
      p99Ms: median(runs.map((r) => r.p99Ms)),
      load1: median(runs.map((r) => r.load1)),
    };
  };
  const out = { benchmark: 'cpu-per-request', rate, seconds, rounds, A: summary('A') };
  if (b) {
    out.B = summary('B');
    // Round i of pair p of B against round i of pair p of A: the machine's drift cancels in each ratio.
    const ratios = lines.B.map((line, i) => line.cpuMsPerRequest / lines.A[i].cpuMsPerRequest);
    out.ratioBtoA = { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
  }
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

function runChild(root, args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args, '--one', root], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const got = text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      if (code !== 0 && got.length === 0) reject(new Error(`the run of ${root} exited with ${code}`));
      else resolvePromise(got);
    });
  });
}
