import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { FREE_PORT_ARGS, isPidAlive } from '@sluice/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { clusterStateFile, inspectClusterState, type ClusterState } from './commands/cluster-state.js';
import { REPO_ROOT } from './paths.js';

/**
 * Hostile probes of `sluice up` (loopback only, each bounded to a few seconds): the built CLI
 * starts NATS and the five built services as a user runs it, then
 * - a listener that is not the run's NATS, named in .sluice/cluster.json, must receive no
 *   credential it could log in with;
 * - `kill -9` of the nats-server: it comes back on the same URL, said so, and requests are served;
 * - `kill -9` of `sluice up` itself: no process of the run survives, its secrets are removed, and
 *   the state it leaves is refused as stale, then replaced by the next `sluice up`.
 */
const CLI = join(REPO_ROOT, 'apps', 'cli', 'dist', 'main.js');

/** Polls until `check` holds; fails naming `what` after timeoutMs. */
async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not within ${timeoutMs} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Runs the CLI in this process with the repo's state, collecting what it prints. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) }, env: {}, rootDir: REPO_ROOT });
  return { code, stdout, stderr };
}

/**
 * A TCP listener that plays a NATS server asking for credentials (an INFO with a nonce, as
 * nats-server sends one when nkey users exist), keeps every byte a client sends it, and refuses
 * the login as a server that does not know it would.
 */
async function fakeNats(): Promise<{ server: Server; port: number; received: () => string }> {
  let received = '';
  const server = createServer((socket) => {
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (received.includes('CONNECT')) socket.end("-ERR 'Authorization Violation'\r\n");
    });
    socket.on('error', () => undefined);
    socket.write(`INFO ${JSON.stringify({ server_id: 'FAKE', server_name: 'fake', version: '2.10.0', proto: 1, headers: true, max_payload: 1048576, auth_required: true, nonce: 'c2x1aWNlLWhvc3RpbGUtcHJvYmU' })}\r\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, received: () => received };
}

interface RunningUp {
  readonly child: ChildProcess;
  readonly lines: string[];
  readonly stderr: () => string;
  readonly pids: Set<number>;
  readonly gatewayUrl: string;
}

async function startUp(extra: string[] = []): Promise<RunningUp> {
  const child = spawn(process.execPath, [CLI, 'up', '--no-demo', '--warmup', '0', ...FREE_PORT_ARGS, '--worker.instances=1', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const pids = new Set<number>([child.pid!]);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const gatewayUrl = await new Promise<string>((resolve, reject) => {
    let url = '';
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const pid = /pid (\d+)/.exec(line)?.[1];
      if (pid) pids.add(Number(pid));
      const up = /^sluice is up: gateway (http:\/\/\S+) /.exec(line);
      if (up?.[1]) url = up[1];
      if (url && line.startsWith('  logs: ')) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`sluice up exited with ${code}:\n${lines.join('\n')}\n${stderr}`)));
  });
  return { child, lines, stderr: () => stderr, pids, gatewayUrl };
}

async function served(gatewayUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${gatewayUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3-14b', prompt: 'are you back?', max_tokens: 1 }),
      signal: AbortSignal.timeout(2_000),
    });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

const natsPids = (up: RunningUp): number[] => up.lines.filter((l) => l.startsWith('  ✓ nats ')).map((l) => Number(/pid (\d+)/.exec(l)![1]));

describe.runIf(existsSync(CLI) || process.env.CI === 'true')('sluice up under hostile conditions', () => {
  let up: RunningUp;
  let state: ClusterState;
  beforeAll(async () => {
    up = await startUp();
    const status = inspectClusterState(REPO_ROOT);
    expect(status.kind).toBe('running');
    state = (status as { state: ClusterState }).state;
  }, 60_000);
  afterAll(() => {
    for (const pid of up.pids) if (isPidAlive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('sends no credential a listener could log in with to a NATS URL that cluster.json names wrongly', async () => {
    const secretsDir = dirname(state.natsControl!.nkeySeedFile);
    const secrets = readdirSync(secretsDir)
      .filter((file) => file.endsWith('.password') || file.endsWith('.nk'))
      .map((file) => readFileSync(join(secretsDir, file), 'utf8').trim());
    expect(secrets.length).toBeGreaterThan(5);
    const fake = await fakeNats();
    const file = clusterStateFile(REPO_ROOT);
    const original = readFileSync(file, 'utf8');
    try {
      writeFileSync(file, original.replace(state.natsUrl, `nats://127.0.0.1:${fake.port}`));
      const result = await cli(['worker', 'faults']);
      expect(result.code).not.toBe(0);
      // The client did talk to it: it answered the nonce with a signature, which no other nonce accepts.
      expect(fake.received()).toMatch(/^CONNECT \{.*"sig":"[^"]+"/);
      for (const secret of secrets) expect(fake.received()).not.toContain(secret);
      expect(fake.received()).not.toMatch(/"pass":/);

      // Off this machine and without TLS, nothing is sent at all.
      writeFileSync(file, original.replace(state.natsUrl, 'nats://192.0.2.1:4222'));
      const remote = await cli(['worker', 'faults']);
      expect(remote.code).toBe(2);
      expect(remote.stderr).toContain('refusing to send NATS credentials in clear to 192.0.2.1');
    } finally {
      writeFileSync(file, original);
      fake.server.close();
    }
    // The run's own server still takes the same login.
    expect((await cli(['worker', 'faults'])).code).toBe(0);
  });

  it('restarts a nats-server killed with SIGKILL on the same URL, says so, and serves again', async () => {
    expect(await served(up.gatewayUrl)).toBe(true);
    const [first] = natsPids(up);
    process.kill(first!, 'SIGKILL');
    await eventually(() => natsPids(up).length === 2, 10_000, () => `nats not ready again:\n${up.stderr()}`);
    expect(up.stderr()).toContain(`  ↻ nats exited (signal SIGKILL); restarting in 250 ms on ${state.natsUrl} (attempt 1)`);
    const again = up.lines.filter((l) => l.startsWith('  ✓ nats ')).at(-1)!;
    expect(again).toContain(state.natsUrl);
    expect(natsPids(up)[1]).not.toBe(first);
    await eventually(() => served(up.gatewayUrl), 10_000, () => 'no request served after the NATS restart');
    // The CLI reaches the new server with the same run's login.
    expect((await cli(['worker', 'faults'])).code).toBe(0);
  });

  it('leaves no process and no secret behind when sluice up itself is killed with SIGKILL, and its state is refused as stale, then replaced', async () => {
    const secretsDir = dirname(state.natsControl!.nkeySeedFile);
    const run = [...up.pids];
    expect(run.length).toBeGreaterThanOrEqual(8); // the CLI, nats twice, five services
    up.child.kill('SIGKILL');
    await eventually(() => run.every((pid) => !isPidAlive(pid)), 10_000, () => `still running: ${run.filter(isPidAlive).join(', ')}`);
    await eventually(() => !existsSync(secretsDir), 5_000, () => `${secretsDir} still there`);

    expect(inspectClusterState(REPO_ROOT).kind).toBe('stale');
    const refused = await cli(['worker', 'faults']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`is stale: the \`sluice up\` (pid ${up.child.pid}) that wrote it is no longer running`);
    expect(refused.stderr).toContain('Run `sluice up` again');

    const next = spawn(process.execPath, [CLI, 'up', '--no-demo', '--warmup', '0', ...FREE_PORT_ARGS], { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, NO_COLOR: '1' } });
    const first = await new Promise<string>((resolve) => createInterface({ input: next.stdout }).once('line', resolve));
    const exited = new Promise((resolve) => next.once('exit', resolve));
    next.kill('SIGINT');
    await exited;
    expect(first).toBe(`removed the stale state of a \`sluice up\` (pid ${up.child.pid}) that is no longer running`);
    expect(inspectClusterState(REPO_ROOT).kind).toBe('none');
  });
});
