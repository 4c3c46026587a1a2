import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '@sluice/bus';
import { LoadSnapshotSchema, subjectPatterns, type BusFaultsState } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, startNats, type LocalCluster, type NatsServerHandle } from '@sluice/launcher';
import { runCli } from './cli.js';

/**
 * `sluice bus faults` against a real worker process on a real NATS: a rule set from the CLI
 * reaches the process and acts on what it sends (its load snapshots, published at least every
 * 100 ms), and clearing it lets them through again.
 */
let nats: NatsServerHandle;
let worker: LocalCluster;

beforeAll(async () => {
  nats = await startNats();
  worker = await startLocalCluster({ rootDir: REPO_ROOT, natsUrl: nats.url, services: ['worker'], configArgs: [...FREE_PORT_ARGS, '--worker.instances=1'] });
});

afterAll(async () => {
  await worker?.stop();
  await nats?.stop();
});

async function sluice(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['bus', 'faults', ...argv, `--nats.url=${nats.url}`], {
    stdout: { write: (c: string) => (stdout += c) },
    stderr: { write: (c: string) => (stderr += c) },
    env: {},
    cwd: REPO_ROOT,
  });
  return { code, stdout, stderr };
}

const states = async (...argv: string[]): Promise<BusFaultsState[]> => {
  const { code, stdout, stderr } = await sluice(...argv, '--json');
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as BusFaultsState[];
};

/** Polls `sluice bus faults` until `done` holds (a real signal, not a sleep), for at most 10 s. */
async function until(done: (s: BusFaultsState[]) => boolean): Promise<BusFaultsState[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = await states();
    if (done(s) || Date.now() > deadline) return s;
  }
}

describe('sluice bus faults', () => {
  it('lists the running process with no rules; the CLI itself does not answer', async () => {
    const [only, ...others] = await states();
    expect(others).toEqual([]);
    expect(only).toMatchObject({ process: expect.stringMatching(/^worker/), rules: [] });
    const table = await sluice();
    expect(table.stdout).toMatch(/^process\s+subject\s+delay-ms\s+jitter-ms\s+drop%\s+duplicate%$/m);
    expect(table.stdout).toMatch(/^worker\S*\s+-$/m);
  });

  it('set reaches the process and drops what it sends; clear lets it through again', async () => {
    const set = await states('set', '--subject', subjectPatterns.allWorkerLoad, '--drop', '100');
    expect(set).toHaveLength(1);
    expect(set[0]!.rules).toEqual([{ subject: subjectPatterns.allWorkerLoad, delayMs: 0, jitterMs: 0, dropPercent: 100, duplicatePercent: 0 }]);
    expect((await until((s) => s[0]!.applied.dropped > 0))[0]!.applied.dropped).toBeGreaterThan(0);

    const table = await sluice();
    expect(table.stdout).toMatch(new RegExp(`^worker\\S*\\s+${subjectPatterns.allWorkerLoad.replaceAll('.', '\\.').replaceAll('*', '\\*')}\\s+0\\s+0\\s+100\\s+0$`, 'm'));
    expect(table.stdout).toMatch(/applied so far \(1 process\): delayed 0, dropped [1-9]\d*, duplicated 0/);

    const listener = await Bus.connect({ url: nats.url, name: 'bus-faults-spec', ackTimeoutMs: 1_000, answerFaultControl: false, log: () => undefined });
    try {
      const snapshot = new Promise<void>((resolve) => listener.listen(subjectPatterns.allWorkerLoad, LoadSnapshotSchema, () => resolve()));
      await listener.flush();
      const cleared = await states('clear', '--subject', subjectPatterns.allWorkerLoad);
      expect(cleared[0]!.rules).toEqual([]);
      await snapshot;
    } finally {
      await listener.drain();
    }
  });

  it('refuses a bad pattern before touching the cluster, and says when nothing answers', async () => {
    const bad = await sluice('set', '--subject', 'sluice.v1.>.load', '--delay-ms', '10');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--subject: not a NATS subject pattern');
    let stderr = '';
    const code = await runCli(['bus', 'faults', '--nats.url=nats://127.0.0.1:1'], { stderr: { write: (c: string) => (stderr += c) }, env: {}, cwd: REPO_ROOT });
    expect(code).toBe(1);
    expect(stderr).toContain('cannot reach NATS at nats://127.0.0.1:1');
  });
});
