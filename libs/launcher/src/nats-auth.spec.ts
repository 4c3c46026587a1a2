import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from '@nats-io/transport-node';
import { BUS_IDENTITIES } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { authorizationBlock, envPasswordOf, writeNatsAuth } from './nats-auth.js';

describe('a run’s bus credentials', () => {
  it('writes a password per identity and the control nkey, each readable by its owner only, and the server’s users with both', () => {
    const auth = writeNatsAuth(join(mkdtempSync(join(tmpdir(), 'sluice-auth-')), 'nats'));
    expect(statSync(auth.dir).mode & 0o777).toBe(0o700);
    for (const file of [auth.configFile, auth.controlNkey.seedFile, ...BUS_IDENTITIES.map(auth.passwordFileOf)]) expect(statSync(file).mode & 0o777, file).toBe(0o600);

    const seed = readFileSync(auth.controlNkey.seedFile, 'utf8').trim();
    expect(seed).toMatch(/^SU[A-Z2-7]+$/);
    // The public key in the server's users is the seed's own.
    expect(nkeys.fromSeed(new TextEncoder().encode(seed)).getPublicKey()).toBe(auth.controlNkey.publicKey);
    const conf = readFileSync(auth.configFile, 'utf8');
    expect(conf).toContain(`nkey: "${auth.controlNkey.publicKey}"`);
    for (const identity of BUS_IDENTITIES) expect(conf).toContain(`user: "${identity}", password: "${readFileSync(auth.passwordFileOf(identity), 'utf8').trim()}"`);
    // No seed in the server's config: it knows the public key only.
    expect(conf).not.toContain(seed);
  });

  it('draws a new nkey every run', () => {
    const a = writeNatsAuth(mkdtempSync(join(tmpdir(), 'sluice-auth-')));
    const b = writeNatsAuth(mkdtempSync(join(tmpdir(), 'sluice-auth-')));
    expect(a.controlNkey.publicKey).not.toBe(b.controlNkey.publicKey);
  });

  it('gives the nkey user the permissions of the identity it plays', () => {
    const block = authorizationBlock(envPasswordOf, [{ identity: 'control', publicKey: 'UABC' }]);
    const entry = (login: string) => block.slice(block.indexOf(login), block.indexOf('    }', block.indexOf(login)));
    expect(entry('nkey: "UABC"').replace('nkey: "UABC"', '')).toBe(entry('user: "control"').replace(/user: "control", password: \S+/, ''));
    // Without nkey users the block is what Kubernetes mounts (infra/k8s/base/nats-authorization.conf).
    expect(authorizationBlock(envPasswordOf)).not.toContain('nkey');
  });
});
