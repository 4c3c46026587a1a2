import { readFileSync } from 'node:fs';
import { ConfigError } from './config.error.js';
import type { SluiceConfig } from './config.schema.js';

export interface NatsCredentials {
  readonly user: string;
  readonly password: string;
}

/**
 * The identity a process connects to NATS as (`nats.user` with `nats.password` or the first line of
 * `nats.passwordFile`), or undefined for an anonymous connection. A password file that cannot be
 * read is a config error naming the key, as any bad value is: the process exits 2 at start-up.
 */
export function natsCredentialsOf(nats: SluiceConfig['nats']): NatsCredentials | undefined {
  if (nats.user === undefined) return undefined;
  if (nats.password !== undefined) return { user: nats.user, password: nats.password };
  const file = nats.passwordFile!;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`nats.passwordFile: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): the password of NATS user "${nats.user}"`]);
  }
  const password = text.split('\n')[0]!.trim();
  if (password === '') throw new ConfigError([`nats.passwordFile: ${file} is empty: it should hold the password of NATS user "${nats.user}"`]);
  return { user: nats.user, password };
}

/** How a process reaches a NATS over TLS: the files nats.js reads, each checked readable now. */
export interface NatsTlsFiles {
  readonly caFile: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

/**
 * `nats.tls` with every file it names readable, or undefined for plain TCP. A file that cannot be
 * read is a config error naming its key (the process exits 2 at start-up, as for any bad value),
 * rather than a connection that retries for ever against a server it cannot verify.
 */
export function natsTlsOf(nats: SluiceConfig['nats']): NatsTlsFiles | undefined {
  const tls = nats.tls;
  if (tls === undefined) return undefined;
  const problems: string[] = [];
  for (const key of ['caFile', 'certFile', 'keyFile'] as const) {
    const file = tls[key];
    if (file === undefined) continue;
    try {
      readFileSync(file);
    } catch (error) {
      problems.push(`nats.tls.${key}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return tls;
}
