import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A CA and a server certificate it signed, as PEM files in a fresh temporary directory. */
export interface TestCertificates {
  readonly dir: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** A second CA, which did not sign the server's certificate. */
  readonly otherCaFile: string;
}

/**
 * Certificates generated locally with openssl (P-256 keys, valid a day): a CA, and a server
 * certificate for 127.0.0.1 and localhost signed by it, as docs/security.md ("TLS") shows.
 */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-tls-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...key, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', '/CN=sluice test CA');
  openssl('req', '-x509', ...key, '-keyout', file('other-ca.key'), '-out', file('other-ca.pem'), '-days', '1', '-subj', '/CN=another CA');
  openssl('req', ...key, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('server.pem'), '-days', '1', '-extfile', file('server.ext'));
  return { dir, caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key'), otherCaFile: file('other-ca.pem') };
}
