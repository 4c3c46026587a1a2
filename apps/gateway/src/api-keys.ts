import { createHash, timingSafeEqual } from 'node:crypto';
import { DEFAULT_SLO_CLASS, type SloClass } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import type { RequestRate } from '@sluice/stages';

/** One configured API key as the gateway uses it: who its requests are and what they may do. */
export interface ApiKey {
  readonly id: string;
  /** The fairness id every request with this key is scheduled as (the config's `tenant`). */
  readonly fairnessId: string;
  readonly objective: string | undefined;
  readonly sloClass: SloClass;
  readonly sloTtftMs: number | undefined;
  readonly rateLimit: RequestRate | undefined;
  readonly admin: boolean;
  /** May read `/metrics`: a scrape key, or an admin key. */
  readonly metrics: boolean;
}

export type Authentication = { readonly ok: true; readonly key: ApiKey } | { readonly ok: false; readonly message: string };

/** How a key is kept in config: `sha256:` and the hex SHA-256 of the key (docs/security.md). */
export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

// OpenAI's own wording, so clients and their users recognize the answer.
const MISSING = "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
const INCORRECT = 'Incorrect API key provided. Use a key this gateway was configured with (gateway.auth.keys).';

const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * The gateway's API keys (`gateway.auth`), checked against their hashes only: the config never
 * holds a key. A presented key is hashed and compared with every configured hash in constant time
 * (no early exit, `timingSafeEqual`), so how long the check takes says nothing about which bytes
 * matched, nor which key did.
 */
export class ApiKeys {
  private readonly entries: readonly { readonly digest: Buffer; readonly key: ApiKey }[];

  constructor(auth: SluiceConfig['gateway']['auth']) {
    this.entries = (auth?.keys ?? []).map((k) => ({
      digest: Buffer.from(k.hash.slice('sha256:'.length), 'hex'),
      key: {
        id: k.id,
        fairnessId: k.tenant,
        objective: k.objective,
        sloClass: k.sloClass ?? DEFAULT_SLO_CLASS,
        sloTtftMs: k.sloTtftMs,
        rateLimit: k.rateLimit,
        admin: k.admin,
        metrics: k.metrics || k.admin,
      },
    }));
  }

  /** Keys are required: gateway.auth is configured. */
  get enabled(): boolean {
    return this.entries.length > 0;
  }

  /** The key an `Authorization` header names, or the OpenAI-worded reason it names none. */
  authenticate(authorization: string | undefined): Authentication {
    const presented = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    if (presented === undefined) return { ok: false, message: MISSING };
    const digest = createHash('sha256').update(presented, 'utf8').digest();
    let found: ApiKey | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(digest, entry.digest) && found === undefined) found = entry.key;
    }
    return found ? { ok: true, key: found } : { ok: false, message: INCORRECT };
  }
}
