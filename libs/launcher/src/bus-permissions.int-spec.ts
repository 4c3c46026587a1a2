import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { connect, nkeyAuthenticator, nkeys, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefixOf, subjectPatterns, subjects, type BusIdentity } from '@sluice/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from './index.js';

/**
 * The bus `sluice up` starts requires credentials (nats.auth, on by default): one identity per
 * service kind, each allowed only its subjects (libs/contracts/src/bus-identities.ts). Played here
 * by raw NATS clients against a real cluster, as an intruder on the machine would.
 */
let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, '--worker.timeScale=100'] });
});
afterAll(() => cluster?.stop());

/** A raw client as `identity`, collecting the permission errors the server reports to it. */
async function as(identity: BusIdentity): Promise<{ nc: NatsConnection; violations: string[] }> {
  const { user, password } = cluster.natsIdentity(identity)!;
  const nc = await connect({ servers: cluster.natsUrl, user, pass: password, inboxPrefix: inboxPrefixOf(identity) });
  const violations: string[] = [];
  void (async () => {
    for await (const status of nc.status()) if (status.type === 'error') violations.push(String((status as { error?: Error }).error?.message));
  })();
  return { nc, violations };
}

async function settle(nc: NatsConnection): Promise<void> {
  await nc.flush();
  await new Promise((resolve) => setTimeout(resolve, 200)); // the server's -ERR comes after the flush's PONG
}

describe('the bus of sluice up', () => {
  it('refuses a client without credentials, and one with a wrong password', async () => {
    await expect(connect({ servers: cluster.natsUrl })).rejects.toThrow(/Authorization Violation/);
    await expect(connect({ servers: cluster.natsUrl, user: 'admission', pass: 'guessed' })).rejects.toThrow(/Authorization Violation/);
  });

  it('keeps the worker identity to its own subjects: no control verbs, no other stage’s handoffs, no gateway’s frames', async () => {
    const { nc, violations } = await as('worker');
    nc.publish(subjects.control('admission', 'set'), JSON.stringify({ policy: 'reject-all' }));
    nc.publish(subjects.admissionSubmit(), '{}');
    nc.subscribe(subjects.admissionSubmit());
    nc.subscribe(subjects.inboxOfGateway('gw-any'));
    nc.subscribe(`${inboxPrefixOf('gateway')}.>`); // the gateway's acks
    await settle(nc);
    expect(violations).toEqual([
      `Permissions Violation for Publish to "${subjects.control('admission', 'set')}"`,
      `Permissions Violation for Publish to "${subjects.admissionSubmit()}"`,
      `Permissions Violation for Subscription to "${subjects.admissionSubmit()}"`,
      `Permissions Violation for Subscription to "${subjects.inboxOfGateway('gw-any')}"`,
      `Permissions Violation for Subscription to "${inboxPrefixOf('gateway')}.>"`,
    ]);
    await nc.close();
  });

  it('keeps the autoscaler identity to sizing workers: set-instances yes; no other verb, no handoff, no request frames', async () => {
    const { nc, violations } = await as('autoscaler');
    nc.publish(subjects.control('worker', 'set-instances'), JSON.stringify({ workerId: 'worker-none', instances: 1 }));
    nc.publish(subjects.control('worker', 'set-faults'), '{}');
    nc.publish(subjects.workerSubmit('worker-any-r0'), '{}');
    nc.subscribe(subjects.inboxOfGateway('gw-any'));
    nc.subscribe(subjectPatterns.allWorkerLifecycle);
    await settle(nc);
    expect(violations).toEqual([
      `Permissions Violation for Publish to "${subjects.control('worker', 'set-faults')}"`,
      `Permissions Violation for Publish to "${subjects.workerSubmit('worker-any-r0')}"`,
      `Permissions Violation for Subscription to "${subjects.inboxOfGateway('gw-any')}"`,
    ]);
    await nc.close();
  });

  it('lets only the control identity change admission: a forged change has no effect, the control identity’s does', async () => {
    const current = async (): Promise<string> => {
      const { nc } = await as('control');
      const reply = await nc.request(subjects.control('admission', 'get'), '{}', { timeout: 2_000 });
      await nc.close();
      return (reply.json<{ result: { policy: string } }>()).result.policy;
    };
    expect(await current()).toBe('always-admit');
    for (const intruder of ['worker', 'router', 'gateway'] as const) {
      const { nc, violations } = await as(intruder);
      nc.publish(subjects.control('admission', 'set'), JSON.stringify({ policy: 'reject-all' }));
      await settle(nc);
      expect(violations, intruder).toEqual([`Permissions Violation for Publish to "${subjects.control('admission', 'set')}"`]);
      await nc.close();
    }
    expect(await current()).toBe('always-admit');

    const { nc } = await as('control');
    const answer = await nc.request(subjects.control('admission', 'set'), JSON.stringify({ policy: 'reject-all' }), { timeout: 2_000 });
    expect(answer.json<{ ok: boolean }>().ok).toBe(true);
    await nc.request(subjects.control('admission', 'set'), JSON.stringify({ policy: 'always-admit' }), { timeout: 2_000 });
    await nc.close();
  });

  it('lets the CLI in as control with the run’s nkey, with control’s subjects only; an nkey it does not know is refused', async () => {
    const seed = readFileSync(cluster.natsControlNkey!.seedFile, 'utf8').trim();
    const nc = await connect({ servers: cluster.natsUrl, authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)), inboxPrefix: inboxPrefixOf('control') });
    const violations: string[] = [];
    void (async () => {
      for await (const status of nc.status()) if (status.type === 'error') violations.push(String((status as { error?: Error }).error?.message));
    })();
    const reply = await nc.request(subjects.control('admission', 'get'), '{}', { timeout: 2_000 });
    expect(reply.json<{ ok: boolean }>().ok).toBe(true);
    nc.publish(subjects.admissionSubmit(), '{}');
    nc.subscribe(subjects.admissionSubmit());
    await settle(nc);
    expect(violations).toEqual([`Permissions Violation for Publish to "${subjects.admissionSubmit()}"`, `Permissions Violation for Subscription to "${subjects.admissionSubmit()}"`]);
    await nc.close();

    const stranger = nkeys.createUser().getSeed();
    await expect(connect({ servers: cluster.natsUrl, authenticator: nkeyAuthenticator(stranger) })).rejects.toThrow(/Authorization Violation/);
  });

  it('stops a service that cannot authenticate, with exit code 2 and the keys it expected', async () => {
    const router = join(REPO_ROOT, 'apps', 'router', 'dist', 'main.js');
    const child = spawn(process.execPath, [router, `--nats.url=${cluster.natsUrl}`, '--router.port=0', '--nats.user=router', '--nats.password=wrong'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('refused to connect as user "router" (nats.user with nats.password or nats.passwordFile)');
  });
});
