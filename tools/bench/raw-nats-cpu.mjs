// Benchmark: the CPU one raw NATS request/reply costs on this machine, at a given rate, open loop.
//   node tools/bench/raw-nats-cpu.mjs [--rates 1000,5000] [--seconds 5]
// The floor under every sluice hop: a nats.js client here, an echo responder in a child process,
// and a nats-server started for the run; each one's CPU time (/proc/<pid>/stat, user + system)
// divided by the round trips made. At low rates every message wakes a sleeping process; at high
// rates messages share syscalls and wake-ups, and the cost per round trip falls.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { startNats } from '@sluice/launcher';
import { commandLine } from './bench-run.mjs';

const { option } = commandLine();

if (process.argv[2] === 'responder') {
  const nc = await connect({ servers: process.argv[3] });
  nc.subscribe('bench.raw.echo', { callback: (_, msg) => void msg.respond(msg.data) });
  await nc.flush();
  process.send('ready');
} else {
  const rates = option('rates', '1000,5000').split(',').map(Number);
  const seconds = Number(option('seconds', 5));
  const nats = await startNats();
  /** CPU ms of a process so far (clock ticks of 10 ms). */
  const cpuMs = (pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const responder = fork(fileURLToPath(import.meta.url), ['responder', nats.url]);
  await new Promise((resolve) => responder.once('message', resolve));
  const nc = await connect({ servers: nats.url });
  const payload = 'x'.repeat(420);
  console.log(`raw NATS request/reply CPU per round trip (nats.js ${process.version}, ${seconds} s per rate, open loop)`);
  for (const rate of rates) {
    const pids = [process.pid, responder.pid, nats.pid];
    const before = pids.map((pid) => (pid === undefined ? 0 : cpuMs(pid)));
    const total = rate * seconds;
    const started = performance.now();
    let sent = 0;
    let done = 0;
    await new Promise((resolve) => {
      const tick = () => {
        const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000));
        for (; sent < due; sent++) void nc.request('bench.raw.echo', payload, { timeout: 5_000 }).then(() => ++done === total && resolve());
        if (sent < total) setTimeout(tick, 1);
      };
      tick();
    });
    const perRoundTrip = pids.map((pid, i) => (pid === undefined ? Number.NaN : ((cpuMs(pid) - before[i]) * 1000) / total));
    console.log(`${String(rate).padStart(6)}/s: client ${perRoundTrip[0].toFixed(0)} µs, responder ${perRoundTrip[1].toFixed(0)} µs, nats-server ${perRoundTrip[2].toFixed(0)} µs`);
  }
  responder.kill();
  await nc.close();
  await nats.stop();
}
