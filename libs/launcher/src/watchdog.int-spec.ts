import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { isPidAlive } from './process.js';
import { watchdogArgs } from './watchdog.js';

/**
 * The watchdog against a launcher killed with SIGKILL: a stand-in launcher (a node process)
 * starts real children and the real watchdog, tells it what to clean up, and is killed; what it
 * named must go, what it took back must stay. Each case is bounded to a few seconds.
 */
async function eventually(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what} not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Starts a launcher stand-in: its children (`sleep 60` that dies on SIGTERM, a node process that
 * ignores SIGTERM, and one it forgets again), a secrets directory, and the watchdog told of them.
 */
async function standInLauncher(graceMs: number): Promise<{ kill: () => void; pids: { polite: number; stubborn: number; forgotten: number; watchdog: number }; secrets: string }> {
  const secrets = mkdtempSync(join(tmpdir(), 'sluice-watchdog-'));
  writeFileSync(join(secrets, 'control.password'), 'secret\n');
  const source = `
    const { spawn } = require('node:child_process');
    // Each child in its own group, as nats-server is: nothing but the watchdog can end it.
    const child = (cmd, args) => spawn(cmd, args, { detached: true, stdio: 'ignore' });
    const polite = child('sleep', ['60']);
    const stubborn = child(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"]);
    const forgotten = child('sleep', ['60']);
    const args = JSON.parse(process.argv[1]);
    const watchdog = spawn(process.execPath, args, { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    watchdog.stdin.write('pid ' + polite.pid + '\\npid ' + stubborn.pid + '\\npid ' + forgotten.pid + '\\npath ' + process.argv[2] + '\\nforget ' + forgotten.pid + '\\n');
    console.log(JSON.stringify({ polite: polite.pid, stubborn: stubborn.pid, forgotten: forgotten.pid, watchdog: watchdog.pid }));
    setInterval(() => {}, 1000);
  `;
  const launcher = spawn(process.execPath, ['-e', source, JSON.stringify(watchdogArgs(graceMs)), secrets], { stdio: ['ignore', 'pipe', 'inherit'] });
  // What was written stays in the pipe after the writer dies: the watchdog reads it before the end.
  const line = await new Promise<string>((resolve) => createInterface({ input: launcher.stdout }).once('line', resolve));
  return { kill: () => launcher.kill('SIGKILL'), pids: JSON.parse(line) as { polite: number; stubborn: number; forgotten: number; watchdog: number }, secrets };
}

describe('watchdog', () => {
  it('stops the children it was told of and removes the secrets when the launcher is killed with SIGKILL; SIGKILL for one that ignores SIGTERM; a forgotten one is left alone', async () => {
    const { kill, pids, secrets } = await standInLauncher(500);
    try {
      expect([pids.polite, pids.stubborn, pids.forgotten, pids.watchdog].every(isPidAlive)).toBe(true);
      kill();
      await eventually(() => !isPidAlive(pids.polite), 2_000, 'the polite child stopped');
      await eventually(() => !existsSync(secrets), 2_000, 'the secrets removed');
      // SIGTERM is ignored: it lives until the grace period is over.
      expect(isPidAlive(pids.stubborn)).toBe(true);
      await eventually(() => !isPidAlive(pids.stubborn), 3_000, 'the stubborn child killed');
      await eventually(() => !isPidAlive(pids.watchdog), 2_000, 'the watchdog exited');
      expect(isPidAlive(pids.forgotten)).toBe(true);
    } finally {
      for (const pid of Object.values(pids)) if (isPidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('stays while the launcher lives', async () => {
    const { kill, pids, secrets } = await standInLauncher(500);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect([pids.polite, pids.stubborn, pids.watchdog].every(isPidAlive)).toBe(true);
      expect(existsSync(secrets)).toBe(true);
    } finally {
      kill();
      await eventually(() => !isPidAlive(pids.watchdog), 3_000, 'the watchdog exited');
      for (const pid of Object.values(pids)) if (isPidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
