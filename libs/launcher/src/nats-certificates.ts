import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterStartError } from './cluster-errors.js';

/** A run's TLS material for the NATS it starts: a CA, and a server certificate it signed. */
export interface NatsCertificates {
  readonly dir: string;
  /** What every client verifies the server against (`nats.tls.caFile`). */
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * Generates, into `dir`, a CA and a certificate for 127.0.0.1 and localhost signed by it (P-256
 * keys, valid 30 days), with openssl, as docs/security.md ("TLS") shows by hand. The keys are
 * mode 0600; the CA's key is kept in the directory only until the run stops, with the rest.
 */
export function writeNatsCertificates(dir: string, days = 30): NatsCertificates {
  const file = (name: string) => join(dir, name);
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const openssl = (...args: string[]): void => {
    try {
      execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'openssl is not installed (apt-get install openssl)' : String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
      throw new ClusterStartError(`nats.generateTls: could not make the run's certificates: ${reason}`);
    }
  };
  openssl('req', '-x509', ...key, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', String(days), '-subj', '/CN=sluice run CA');
  openssl('req', ...key, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('server.pem'), '-days', String(days), '-extfile', file('server.ext'));
  for (const name of ['ca.key', 'server.key']) chmodSync(file(name), 0o600);
  return { dir, caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
}
