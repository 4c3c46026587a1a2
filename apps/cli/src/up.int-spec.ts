import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FREE_PORT_ARGS, isPidAlive, startLocalCluster } from '@sluice/launcher';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { clusterStateFile, readClusterState } from './commands/cluster-state.js';
import { REPO_ROOT } from './paths.js';

/**
 * `sluice up` for real, as a user runs it: the built CLI, NATS and the five built services as
 * processes; then SIGINT, and nothing may be left running.
 */
const CLI = join(REPO_ROOT, 'apps', 'cli', 'dist', 'main.js');

describe.runIf(existsSync(CLI) || process.env.CI === 'true')('sluice up', () => {
  const pids: number[] = [];
  afterAll(() => {
    for (const pid of pids) if (isPidAlive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('starts everything (two worker processes), prints the gateway URL, restarts a killed worker, and stops cleanly on SIGINT', async () => {
    const child = spawn(process.execPath, [CLI, 'up', '--no-demo', ...FREE_PORT_ARGS, '--worker.processes=2', '--worker.instances=1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    pids.push(child.pid!);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines: string[] = [];
    const gatewayUrl = await new Promise<string>((resolve, reject) => {
      let url = '';
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        const pid = /pid (\d+)/.exec(line)?.[1];
        if (pid) pids.push(Number(pid));
        const up = /^sluice is up: gateway (http:\/\/\S+) \(Ctrl-C to stop\)$/.exec(line);
        if (up?.[1]) url = up[1];
        if (url && line.startsWith('  logs: ')) resolve(url); // the last line of the banner
      });
      child.once('exit', (code) => reject(new Error(`sluice up exited with ${code}:\n${lines.join('\n')}\n${stderr}`)));
    });

    for (const name of ['nats', 'worker-0', 'worker-1', 'router', 'flow-controller', 'admission', 'gateway']) {
      expect(lines.some((l) => l.startsWith(`  ✓ ${name} `))).toBe(true);
    }
    expect(lines).toContain('  workers: worker-0, worker-1 (2 × 1 instance); a process that exits is restarted');
    expect(lines.join('\n')).not.toContain('\u001b[');
    expect((await fetch(`${gatewayUrl}/readyz`)).status).toBe(200);

    // Another command finds the cluster through the state file `up` wrote, with no URL given.
    const state = readClusterState(REPO_ROOT);
    expect(state).toMatchObject({ pid: child.pid, gatewayUrl });
    expect(state?.processes?.map((p) => p.name)).toEqual(['worker-0', 'worker-1', 'router', 'flow-controller', 'admission', 'gateway']);
    let faults = '';
    const code = await runCli(['worker', 'faults', '--json'], { stdout: { write: (c: string) => (faults += c) }, env: {}, rootDir: REPO_ROOT });
    expect(code).toBe(0);
    expect(Object.keys(JSON.parse(faults) as object)).toHaveLength(2);

    // kill -9 of a worker: `up` says it restarts it, and the state file gets the new pid once it is ready.
    const killed = state!.processes!.find((p) => p.name === 'worker-1')!.pid;
    process.kill(killed, 'SIGKILL');
    const restarted = await new Promise<number>((resolve, reject) => {
      const deadline = Date.now() + 10_000;
      const check = () => {
        const pid = readClusterState(REPO_ROOT)?.processes?.find((p) => p.name === 'worker-1')?.pid;
        const reported = stderr.includes('  ↻ worker-1 exited (signal SIGKILL); restarting in 250 ms (attempt 1)');
        const readyAgain = lines.filter((l) => l.startsWith('  ✓ worker-1 ')).length === 2;
        if (pid !== undefined && pid !== killed && reported && readyAgain) resolve(pid);
        else if (Date.now() > deadline) reject(new Error(`worker-1 not restarted and reported within 10 s:\n${stderr}`));
        else setTimeout(check, 50);
      };
      check();
    });
    pids.push(restarted);
    expect(lines.some((l) => l.startsWith('  ✓ worker-1 ') && new RegExp(`pid ${restarted}\\b`).test(l))).toBe(true);

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const t0 = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(existsSync(clusterStateFile(REPO_ROOT))).toBe(false);
    expect(lines).toContain('stopping…');
    expect(pids.length).toBeGreaterThanOrEqual(8); // the CLI, six processes, the restarted worker-1, and nats-server unless NATS_URL is set
    expect(pids.filter(isPidAlive)).toEqual([]);
  });

  it('runs the demo workload through the fresh cluster, prints the report, and keeps the cluster up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-demo-'));
    const workload = join(dir, 'demo.yaml');
    writeFileSync(
      workload,
      'seed: 9\naggregate_rate: 20\nnum_requests: 20\nclients:\n  - { id: c, tenant_id: t, slo_class: standard, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 32 } }, output_distribution: { type: constant, params: { value: 4 } } }\n',
    );
    const child = spawn(process.execPath, [CLI, 'up', '--demo-workload', workload, ...FREE_PORT_ARGS, '--worker.instances=2', '--worker.timeScale=10'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    pids.push(child.pid!);
    const lines: string[] = [];
    const reportFile = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        const pid = /pid (\d+)/.exec(line)?.[1];
        if (pid) pids.push(Number(pid));
        const report = /^report: (\S+report\.json)$/.exec(line);
        if (report?.[1]) resolve(report[1]);
      });
      child.once('exit', (code) => reject(new Error(`sluice up exited with ${code}:\n${lines.join('\n')}`)));
    });
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { summary: { conservation: { check: { balanced: boolean } }; overall: { completed: number } } };
    expect(report.summary.conservation.check.balanced).toBe(true);
    expect(report.summary.overall.completed).toBe(20);
    await new Promise<void>((resolve) => {
      const check = () => (lines.some((l) => l.startsWith('the cluster keeps running at ')) ? resolve() : setTimeout(check, 50));
      check();
    });
    const gatewayUrl = /running at (http:\/\/\S+):/.exec(lines.find((l) => l.startsWith('the cluster keeps running at '))!)![1]!;
    expect((await fetch(`${gatewayUrl}/readyz`)).status).toBe(200);

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});

describe.runIf(existsSync(CLI) || process.env.CI === 'true')('sluice up --only (a second machine joining a cluster)', () => {
  it('starts only the named services on the given NATS: its worker instances join the cluster and serve, and leave when it stops', async () => {
    const first = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, '--worker.instances=1'], logDir: mkdtempSync(join(tmpdir(), 'sluice-first-')) });
    try {
      const routerUrl = first.processes().find((p) => p.name === 'router')!.url;
      const instancesSeen = async () => new Set([...(await (await fetch(`${routerUrl}/metrics`)).text()).matchAll(/sluice_router_inflight\{worker_instance="([^"]+)"/g)].map((m) => m[1]));
      expect((await instancesSeen()).size).toBe(1);

      // The first machine's bus requires credentials: the second joins as the worker identity, with the password file copied over.
      const worker = first.natsIdentity('worker')!;
      const joinArgs = [`--nats.url=${first.natsUrl}`, `--nats.user=${worker.user}`, `--nats.passwordFile=${worker.passwordFile}`];
      const child = spawn(process.execPath, [CLI, 'up', '--only', 'worker', ...joinArgs, '--worker.port=0', '--worker.instances=2', '--no-demo'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NO_COLOR: '1' },
      });
      const lines: string[] = [];
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          lines.push(line);
          if (line.startsWith('  logs: ')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`sluice up --only worker exited with ${code}:\n${lines.join('\n')}`)));
      });
      expect(lines).toContain(`sluice is up: worker on NATS ${first.natsUrl} (Ctrl-C to stop)`);
      expect(lines.filter((l) => l.startsWith('  ✓ ')).map((l) => l.split(/\s+/)[2])).toEqual(['nats', 'worker-0']);

      // The router of the first machine routes to the joined instances (round-robin reaches all three).
      const deadline = Date.now() + 10_000;
      while ((await instancesSeen()).size < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect((await instancesSeen()).size).toBe(3);
      const served = new Set<string>();
      for (let i = 0; i < 9; i++) {
        const res = await fetch(`${first.gatewayUrl}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-sluice-report-timings': '1' },
          body: JSON.stringify({ model: first.config.worker.model, prompt: 'join me', max_tokens: 2 }),
        });
        expect(res.status).toBe(200);
        served.add(((await res.json()) as { sluice: { instance: string } }).sluice.instance);
      }
      expect(served.size).toBe(3);

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      // Its instances deregistered as it stopped: the first machine's router is back to its own one.
      const gone = Date.now() + 5_000;
      while ((await instancesSeen()).size > 1 && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
      expect((await instancesSeen()).size).toBe(1);
    } finally {
      await first.stop();
    }
  });

  it('refuses a service it does not know, naming the allowed ones', async () => {
    let stderr = '';
    const code = await runCli(['up', '--only', 'worker,gatewya'], { stderr: { write: (c: string) => (stderr += c) }, env: {}, rootDir: REPO_ROOT });
    expect(code).toBe(2);
    expect(stderr).toContain('sluice up: --only: "gatewya" is not a service; allowed: worker, router, flow-controller, admission, gateway, autoscaler (comma-separated)');
  });
});
