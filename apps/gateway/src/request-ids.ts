import { randomBytes } from 'node:crypto';
import type { ApiKind } from '@sluice/openai';

/**
 * Request ids in OpenAI's shape (`cmpl-…`, `chatcmpl-…`): a random prefix drawn once per gateway
 * process, then a counter. Unique across gateways and restarts (48 random bits per process) and
 * a valid subject token. Drawing 12 random bytes per request instead cost ~3% of the gateway's
 * busy time under load (CPU profiles; docs/benchmarks.md).
 */
export class RequestIds {
  private readonly prefix = randomBytes(6).toString('hex');
  private count = 0;

  next(kind: ApiKind): string {
    return `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${this.prefix}${(this.count++).toString(36)}`;
  }
}
