import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeNatsCertificates } from '@sluice/launcher';

/** A CA and a server certificate it signed, as PEM files in a fresh temporary directory. */
export interface TestCertificates {
  readonly dir: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** A second CA, which did not sign the server's certificate. */
  readonly otherCaFile: string;
}

/** Certificates generated locally with openssl, as `sluice up --nats.generateTls` makes them, plus a CA that signed nothing here. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-tls-'));
  const other = join(dir, 'other');
  mkdirSync(other);
  return { ...writeNatsCertificates(dir, 1), otherCaFile: writeNatsCertificates(other, 1).caFile };
}
