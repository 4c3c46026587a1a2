import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RESTART_POLICY } from './backoff.js';
import { ClusterNats, type NatsRestartEvent } from './cluster-nats.js';
import { waitForPidExit } from './local-cluster.js';
import { findNatsServer, parseNatsServers } from './nats-server.js';
import { natsAnswers } from './net.js';

/**
 * The launcher's NATS supervised as a service is: a real nats-server killed with SIGKILL comes
 * back on its URL; a restart asked for (a chaos run) is not taken for a crash; restarts that keep
 * failing end in giving up; stop() cancels a pending restart. Each case takes about a second.
 */
const binary = findNatsServer() !== undefined;
const policy = { ...DEFAULT_RESTART_POLICY, initialDelayMs: 100, maxStartFailures: 2 };

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function supervised(restartPolicy = policy): { restarts: NatsRestartEvent[]; ready: number[]; gaveUp: string[]; logFile: string; start: () => Promise<ClusterNats> } {
  const restarts: NatsRestartEvent[] = [];
  const ready: number[] = [];
  const gaveUp: string[] = [];
  const logFile = join(mkdtempSync(join(tmpdir(), 'sluice-nats-sup-')), 'nats.log');
  return {
    restarts,
    ready,
    gaveUp,
    logFile,
    start: () =>
      ClusterNats.start(
        { logFile, docker: false },
        { policy: restartPolicy, onRestart: (e) => restarts.push(e), onReady: (n) => ready.push(n.pid!), onGaveUp: (n) => gaveUp.push(n.how) },
      ),
  };
}

describe.runIf(binary || process.env.CI === 'true')('the cluster NATS under supervision', () => {
  it('starts a nats-server killed with SIGKILL again on the same URL, and reports the exit and the return', async () => {
    const s = supervised();
    const nats = await s.start();
    try {
      const [server] = parseNatsServers(nats.url);
      const first = nats.pid!;
      process.kill(first, 'SIGKILL');
      await eventually(() => s.ready.length === 1, 5_000, 'NATS ready again');
      expect(s.restarts).toEqual([{ url: nats.url, attempt: 1, delayMs: 100, how: 'signal SIGKILL' }]);
      expect(s.ready[0]).not.toBe(first);
      expect(nats.pid).toBe(s.ready[0]);
      expect(await natsAnswers(server!.host, server!.port)).toBe(true);
      expect(readFileSync(s.logFile, 'utf8')).toMatch(new RegExp(`--- \\S+ nats exited \\(signal SIGKILL\\); restarting in 100 ms on ${nats.url} \\(attempt 1\\)\n`));
    } finally {
      await nats.stop();
    }
  });

  it('does not take a restart asked for (a chaos run) for a crash', async () => {
    const s = supervised();
    const nats = await s.start();
    try {
      await nats.restart(0, new AbortController().signal);
      const [server] = parseNatsServers(nats.url);
      expect(await natsAnswers(server!.host, server!.port)).toBe(true);
      expect(s.restarts).toEqual([]);
      // …and the server it started is supervised in turn.
      process.kill(nats.pid!, 'SIGKILL');
      await eventually(() => s.ready.length === 1, 5_000, 'NATS ready again');
    } finally {
      await nats.stop();
    }
  });

  it('gives up after the restarts keep failing (its port taken), and says why', async () => {
    // The first restart waits a second: time enough for the squatter to take the port on a loaded
    // machine (with 100 ms the restart sometimes won, and the squatter's listen failed instead).
    const s = supervised({ ...policy, initialDelayMs: 1_000 });
    const nats = await s.start();
    const [server] = parseNatsServers(nats.url);
    const squatter = createServer();
    try {
      const pid = nats.pid!;
      process.kill(pid, 'SIGKILL');
      expect(await waitForPidExit(pid, 2_000)).toBe(true);
      // Someone else takes the port before the restart. A Go process's leader is a zombie while its
      // other threads still exit holding the socket, so the port may stay busy a few ms after
      // waitForPidExit: try again until it is free (well within the restart's second).
      const listen = () =>
        new Promise<boolean>((resolve, reject) => {
          squatter.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)));
          squatter.listen(server!.port, server!.host, () => resolve(true));
        });
      await eventually(listen, 800, 'the port free for the squatter');
      await eventually(() => s.gaveUp.length === 1, 10_000, 'giving up');
      expect(s.restarts.map((e) => e.attempt)).toEqual([1, 2]);
      expect(s.restarts[1]!.how).toMatch(/^the restart failed: /);
      expect(s.gaveUp[0]).toMatch(/^the restart failed: /);
      expect(s.ready).toEqual([]);
    } finally {
      squatter.close();
      await nats.stop();
    }
  });

  it('starts nothing again once stopped, even with a restart pending', async () => {
    const s = supervised();
    const nats = await s.start();
    const pid = nats.pid!;
    process.kill(pid, 'SIGKILL');
    await eventually(() => s.restarts.length === 1, 2_000, 'the exit seen');
    await nats.stop();
    await new Promise((resolve) => setTimeout(resolve, policy.initialDelayMs * 3));
    expect(s.ready).toEqual([]);
    const [server] = parseNatsServers(nats.url);
    expect(await natsAnswers(server!.host, server!.port, 300)).toBe(false);
  });
});
