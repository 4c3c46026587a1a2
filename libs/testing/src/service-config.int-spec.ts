import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SERVICE_NAMES } from '@sluice/launcher';

function runService(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'apps', name, 'dist', 'main.js'), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('bad config stops a service at start-up', () => {
  it.each(SERVICE_NAMES)('%s exits 2 naming the key path and the allowed values', async (name) => {
    const { code, stderr } = await runService(name, ['--router.policy=fastest']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/router\.policy: .*round-robin/);
  });

  it('stops the gateway on an API key given in clear, naming the key path (never echoing the key)', async () => {
    const { code, stderr } = await runService('gateway', ['--gateway.auth.keys=[{id: team-a, hash: sk-live-secret, tenant: a}]']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/gateway\.auth\.keys\[0\]\.hash: must be "sha256:"/);
    expect(stderr).not.toContain('sk-live-secret');
  });

  it('stops the gateway on a connection cap its open-file limit would pre-empt, naming the key', async () => {
    const { code, stderr } = await runService('gateway', ['--gateway.limits.maxConnections=100000000']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/gateway\.limits\.maxConnections: 100000000 cannot take effect: this process may open \d+ files/);
  });

  it('stops the autoscaler started with autoscaler.enabled false (it would decide nothing), naming the key', async () => {
    const { code, stderr } = await runService('autoscaler', []);
    expect(code).toBe(2);
    expect(stderr).toMatch(/autoscaler\.enabled: false: the autoscaler process has nothing to do/);
  });

  it('reads SLUICE_* env the same way', async () => {
    const { code, stderr } = await runService('gateway', [], { SLUICE_GATEWAY__PORT: 'eighty' });
    expect(code).toBe(2);
    expect(stderr).toMatch(/gateway\.port: /);
  });
});
