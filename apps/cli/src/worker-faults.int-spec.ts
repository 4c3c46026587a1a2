import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, startNats, type LocalCluster, type NatsServerHandle } from '@sluice/launcher';
import { runCli } from './cli.js';

/** `sluice worker faults` against two real worker processes (two instances each) on a real NATS. */
let nats: NatsServerHandle;
const workers: LocalCluster[] = [];

beforeAll(async () => {
  nats = await startNats();
  for (let i = 0; i < 2; i++) {
    workers.push(await startLocalCluster({ rootDir: REPO_ROOT, natsUrl: nats.url, services: ['worker'], configArgs: [...FREE_PORT_ARGS, '--worker.instances=2'] }));
  }
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await nats?.stop();
});

async function sluice(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['worker', 'faults', ...argv], {
    stdout: { write: (c: string) => (stdout += c) },
    stderr: { write: (c: string) => (stderr += c) },
    env: {},
    cwd: REPO_ROOT,
  });
  return { code, stdout, stderr };
}

type Knobs = Record<string, { slowdown: number; failureRate: number; failureTypes: string[]; hang: boolean }>;
const knobs = async (...argv: string[]): Promise<Knobs> => JSON.parse((await sluice('--json', `--nats.url=${nats.url}`, ...argv)).stdout) as Knobs;

describe('sluice worker faults', () => {
  it('lists every instance of every worker process with its knobs', async () => {
    const { code, stdout } = await sluice(`--nats.url=${nats.url}`);
    expect(code).toBe(0);
    const rows = stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^instance\s+slowdown\s+failure-rate\s+failure-types\s+hang$/);
    expect(rows).toHaveLength(5);
    for (const row of rows.slice(1)) expect(row).toMatch(/-r[01]\s+1\s+0\s+server_error\s+no$/);
  });

  it('sets knobs on all instances, or on one', async () => {
    const all = await knobs('--slowdown', '3', '--failure-rate=0.25', '--failure-types', 'rate_limit,invalid_request');
    expect(Object.values(all)).toHaveLength(4);
    for (const f of Object.values(all)) expect(f).toEqual({ slowdown: 3, failureRate: 0.25, failureTypes: ['rate_limit', 'invalid_request'], hang: false });

    const one = Object.keys(all).sort()[2]!;
    expect(Object.keys(await knobs('--instance', one, '--hang'))).toEqual([one]);
    const after = await knobs();
    expect(Object.entries(after).filter(([, f]) => f.hang).map(([id]) => id)).toEqual([one]);

    await knobs('--slowdown=1', '--failure-rate=0', '--no-hang');
    expect(Object.values(await knobs()).every((f) => f.slowdown === 1 && !f.hang)).toBe(true);
  });

  it('refuses bad values before touching the cluster, naming the option', async () => {
    const rate = await sluice(`--nats.url=${nats.url}`, '--failure-rate', '2');
    expect(rate.code).toBe(2);
    expect(rate.stderr).toContain('--failure-rate:');
    const type = await sluice(`--nats.url=${nats.url}`, '--failure-types', 'meteor');
    expect(type.code).toBe(2);
    expect(type.stderr).toContain('--failure-types:');
    expect((await sluice('--hang', '--no-hang')).stderr).toContain('contradict');
    expect((await runCli(['worker', 'fault'], { stderr: { write: () => true }, env: {} }))).toBe(2);
  });

  it('says which instance or server did not answer', async () => {
    const missing = await sluice(`--nats.url=${nats.url}`, '--instance', 'nope-r0');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no worker instance nope-r0 answered');
    const down = await sluice('--nats.url=nats://127.0.0.1:1');
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('cannot reach NATS at nats://127.0.0.1:1');
  });
});
