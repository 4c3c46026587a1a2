import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { isPidAlive } from './process.js';

describe('isPidAlive', () => {
  it('is true for a running process and false once it has exited and been reaped', async () => {
    expect(isPidAlive(process.pid)).toBe(true);
    const child = spawn('sleep', ['0']);
    const pid = child.pid!;
    await once(child, 'exit');
    expect(isPidAlive(pid)).toBe(false);
  });

  it('is false for a zombie: exited, its parent never reaps it, yet signal 0 still answers', async () => {
    // The background sleep exits at once; its parent becomes `sleep 5` (exec), which never waits.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(await new Promise<string>((resolve) => createInterface({ input: parent.stdout }).once('line', resolve)));
      const deadline = Date.now() + 3_000;
      while (isPidAlive(zombie) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(() => process.kill(zombie, 0)).not.toThrow(); // still in the process table
      expect(isPidAlive(zombie)).toBe(false);
      expect(isPidAlive(parent.pid!)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
