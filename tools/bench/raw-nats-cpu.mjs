// Benchmark: the CPU one raw NATS request/reply costs on this machine, at a given rate, open loop.
//   node tools/bench/raw-nats-cpu.mjs [--rates 1000,5000] [--seconds 5]
// The floor under every sluice hop: a nats.js client here, an echo responder in a child process,
// and a nats-server started for the run; each one's CPU time (/proc/<pid>/stat, user + system)
// divided by the round trips made (openRawCpuProbe in raw-nats.mjs, which live-path.mjs uses too).
// At low rates every message wakes a sleeping process; at high rates messages share syscalls and
// wake-ups, and the cost per round trip falls.
import { startNats } from '@sluice/launcher';
import { commandLine } from './bench-run.mjs';
import { openRawCpuProbe } from './raw-nats.mjs';

const { option } = commandLine();
const rates = option('rates', '1000,5000').split(',').map(Number);
const seconds = Number(option('seconds', 5));
const nats = await startNats();
const probe = await openRawCpuProbe(nats.url, nats.pid);
const payload = 'x'.repeat(420);
const us = (x) => (x === undefined ? '–' : `${x.toFixed(0)} µs`);
try {
  console.log(`raw NATS request/reply CPU per round trip (nats.js ${process.version}, ${seconds} s per rate, open loop)`);
  for (const rate of rates) {
    const { us: cpu, failed } = await probe.measure(rate, seconds, payload);
    console.log(
      `${String(rate).padStart(6)}/s: client ${us(cpu.client)}, responder ${us(cpu.responder)}, nats-server ${us(cpu.natsServer)}, all ${us(cpu.total)}${failed > 0 ? ` (${failed} timed out)` : ''}`,
    );
  }
} finally {
  await probe.close();
  await nats.stop();
}
