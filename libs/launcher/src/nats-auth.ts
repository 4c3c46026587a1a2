import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUS_IDENTITIES, permissionsOf, type BusIdentity } from '@sluice/contracts';
import { nkeys } from '@nats-io/transport-node';

/**
 * The credentials of one run of `sluice up` (docs/security.md): a password per bus identity, drawn
 * fresh for every run, each in its own file readable by its owner only, and the nats-server
 * `authorization` block that grants each identity its subjects and nothing else.
 */
export interface NatsAuth {
  /** The directory (mode 0700) holding the files below. */
  readonly dir: string;
  /** nats-server's config: the users and their permissions (mode 0600). */
  readonly configFile: string;
  /** The file holding an identity's password (mode 0600): what `nats.passwordFile` points at. */
  readonly passwordFileOf: (identity: BusIdentity) => string;
  /** The user and password cluster nodes use on their routes to each other. */
  readonly route: { readonly user: string; readonly password: string };
  /**
   * The CLI's way in as `control`: an nkey whose seed (mode 0600) never leaves this machine. The
   * server sends a fresh nonce and the client answers with its signature, so a listener that is
   * not this run's server learns nothing it could log in with (docs/security.md).
   */
  readonly controlNkey: { readonly seedFile: string; readonly publicKey: string };
}

/** A password: 192 random bits, URL-safe, so it needs no quoting in a config or a URL. */
function newPassword(): string {
  return randomBytes(24).toString('base64url');
}

/** A value in nats-server's config syntax (a JSON superset): strings quoted, lists of strings. */
const quote = (value: string) => JSON.stringify(value);
const list = (values: readonly string[]) => `[${values.map(quote).join(', ')}]`;

/**
 * nats-server's `authorization` block: one user per identity with its permissions. `passwordOf`
 * gives each password as a config value: a quoted literal, or a `$VARIABLE` nats-server reads from
 * its environment (Kubernetes: from a Secret, `envPasswordOf`).
 */
export function authorizationBlock(passwordOf: (identity: BusIdentity) => string, nkeyUsers: readonly { readonly identity: BusIdentity; readonly publicKey: string }[] = []): string {
  const entries = [
    ...BUS_IDENTITIES.map((identity) => ({ identity, login: `user: ${quote(identity)}, password: ${passwordOf(identity)}` })),
    // An nkey user has no name: it is its public key, with the permissions of the identity it plays.
    ...nkeyUsers.map(({ identity, publicKey }) => ({ identity, login: `nkey: ${quote(publicKey)}` })),
  ];
  const users = entries.map(({ identity, login }) => {
    const { publish, subscribe, answers } = permissionsOf(identity);
    return [
      `    {`,
      `      ${login}`,
      `      permissions: {`,
      `        publish: { allow: ${list(publish)} }`,
      `        subscribe: { allow: ${list(subscribe)} }`,
      answers ? `        allow_responses: true` : undefined,
      `      }`,
      `    }`,
    ]
      .filter((line) => line !== undefined)
      .join('\n');
  });
  return ['# One user per sluice bus identity, with only its subjects (libs/contracts/src/bus-identities.ts).', 'authorization {', '  users = [', users.join('\n'), '  ]', '}', ''].join('\n');
}

/** The environment variable nats-server reads an identity's password from (`SLUICE_FLOW_CONTROLLER_PASSWORD`). */
export function passwordEnvOf(identity: BusIdentity): string {
  return `SLUICE_${identity.toUpperCase().replace(/-/g, '_')}_PASSWORD`;
}

/** `authorizationBlock`'s passwords as references to `passwordEnvOf` (Kubernetes fills them from a Secret). */
export const envPasswordOf = (identity: BusIdentity): string => `$${passwordEnvOf(identity)}`;

/** Writes a fresh set of credentials under `dir` (replacing an earlier run's). */
export function writeNatsAuth(dir: string): NatsAuth {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const passwords = new Map(BUS_IDENTITIES.map((identity) => [identity, newPassword()] as const));
  const passwordFileOf = (identity: BusIdentity) => join(dir, `${identity}.password`);
  for (const [identity, password] of passwords) writeFileSync(passwordFileOf(identity), `${password}\n`, { mode: 0o600 });
  const control = nkeys.createUser();
  const controlNkey = { seedFile: join(dir, 'control.nk'), publicKey: control.getPublicKey() };
  writeFileSync(controlNkey.seedFile, `${new TextDecoder().decode(control.getSeed())}\n`, { mode: 0o600 });
  const configFile = join(dir, 'nats.conf');
  writeFileSync(configFile, authorizationBlock((identity) => quote(passwords.get(identity)!), [{ identity: 'control', publicKey: controlNkey.publicKey }]), { mode: 0o600 });
  // Re-created files keep their old mode: make sure of it.
  for (const file of [configFile, controlNkey.seedFile, ...BUS_IDENTITIES.map(passwordFileOf)]) chmodSync(file, 0o600);
  return { dir, configFile, passwordFileOf, route: { user: 'route', password: newPassword() }, controlNkey };
}
