import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, startNats, type LocalCluster, type NatsServerHandle } from '@sluice/launcher';
import { connect } from '@nats-io/transport-node';
import { postCompletion } from './completions.js';
import { natsArgsAs } from './nats-identities.js';
import { runSluice } from './sluice-cli.js';
import { makeTestCertificates, type TestCertificates } from './test-certificates.js';

/**
 * NATS over TLS (docs/security.md, "TLS"): a nats-server that requires TLS, with certificates
 * generated here by openssl; a worker process and the CLI reach it with `nats.tls.caFile`, and a
 * service that cannot do TLS with it (none configured, or a CA that did not sign the server's
 * certificate) exits 2 at start-up saying so, rather than retrying for ever.
 */

let certs: TestCertificates;
let nats: NatsServerHandle;
let worker: LocalCluster | undefined;

beforeAll(async () => {
  certs = makeTestCertificates();
  nats = await startNats({ tls: { certFile: certs.certFile, keyFile: certs.keyFile } });
});

afterAll(async () => {
  await worker?.stop();
  await nats?.stop();
  rmSync(certs.dir, { recursive: true, force: true });
});

/** A service started as a plain process against the TLS server: its exit code and what it said. */
function runWorker(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'apps', 'worker', 'dist', 'main.js'), `--nats.url=${nats.url}`, ...FREE_PORT_ARGS, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('NATS over TLS', () => {
  it('serves a worker and the CLI that trust its CA', async () => {
    worker = await startLocalCluster({ rootDir: REPO_ROOT, natsUrl: nats.url, services: ['worker'], configArgs: [...FREE_PORT_ARGS, '--worker.instances=2', `--nats.tls.caFile=${certs.caFile}`] });
    const listed = await runSluice(['worker', 'faults', '--json', `--nats.url=${nats.url}`, `--nats.tls.caFile=${certs.caFile}`]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(Object.keys(JSON.parse(listed.stdout) as object)).toHaveLength(2);
  });

  it('stops a service without TLS at start-up, naming nats.tls.caFile', async () => {
    const { code, stderr } = await runWorker([]);
    expect(code).toBe(2);
    expect(stderr).toContain(`could not connect to the NATS server at ${nats.url} without TLS`);
    expect(stderr).toContain('nats.tls.caFile');
  });

  it('stops a service whose CA did not sign the server certificate, naming the file', async () => {
    const { code, stderr } = await runWorker([`--nats.tls.caFile=${certs.otherCaFile}`]);
    expect(code).toBe(2);
    expect(stderr).toContain(`over TLS with the CA in ${certs.otherCaFile}`);
  });

  it('stops a service whose CA file cannot be read, as a bad config value', async () => {
    const { code, stderr } = await runWorker([`--nats.tls.caFile=${join(certs.dir, 'missing.pem')}`]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/nats\.tls\.caFile: cannot read .*missing\.pem \(ENOENT\)/);
  });

  it('refuses a CLI command without TLS, saying why', async () => {
    const plain = await runSluice(['worker', 'faults', `--nats.url=${nats.url}`]);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toMatch(/cannot reach NATS at .*certificate/);
  });
});

describe('sluice up --nats.generateTls', () => {
  it('starts its NATS with TLS on certificates of its own, serves requests through it, and removes them on stop', async () => {
    const cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, '--nats.generateTls=true', '--worker.instances=1', '--worker.timeScale=10'] });
    const caFile = cluster.natsTls?.caFile ?? '';
    try {
      expect(existsSync(caFile)).toBe(true);
      const res = await postCompletion(cluster.gatewayUrl, { prompt: 'over tls', max_tokens: 4 });
      expect(res.status, await res.text()).toBe(200);
      // The control identity over TLS, as the CLI finds it.
      const listed = await runSluice(['worker', 'faults', '--json', ...natsArgsAs(cluster, 'control')]);
      expect(listed.code, listed.stderr).toBe(0);
      // A client that does not trust the run's CA is refused at the handshake, whatever it knows.
      const control = cluster.natsIdentity('control')!;
      await expect(connect({ servers: cluster.natsUrl, user: control.user, pass: control.password, maxReconnectAttempts: 0 })).rejects.toThrow(/certificate/);
    } finally {
      await cluster.stop();
    }
    expect(existsSync(caFile)).toBe(false);
  });
});
