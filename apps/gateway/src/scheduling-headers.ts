import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIPv4 } from 'node:net';
import { httpHeaders } from '@sluice/contracts';

/**
 * The headers that decide how a request is scheduled: its tenant (fairness), objective and SLO
 * class (priority) and TTFT objective (SLO-deadline ordering). A client that may set them can
 * promote itself, so they are honoured only from trusted sources (docs/behaviour.md §3).
 */
export const SCHEDULING_HEADERS = [httpHeaders.fairnessId, httpHeaders.objective, httpHeaders.sloClass, httpHeaders.sloTtftMs] as const;

/** Decides, per client address, whether its scheduling headers count. */
export class HeaderTrust {
  private readonly trusted = new BlockList();

  constructor(ranges: readonly string[]) {
    for (const range of ranges) {
      const [address = '', prefix] = range.split('/');
      const type = isIPv4(address) ? 'ipv4' : 'ipv6';
      if (prefix === undefined) this.trusted.addAddress(address, type);
      else this.trusted.addSubnet(address, Number(prefix), type);
    }
  }

  trusts(remoteAddress: string | undefined): boolean {
    if (!remoteAddress) return false;
    // A dual-stack socket shows IPv4 clients as ::ffff:a.b.c.d; match them against IPv4 ranges.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress)?.[1];
    if (mapped) return this.trusted.check(mapped, 'ipv4');
    return this.trusted.check(remoteAddress, isIPv4(remoteAddress) ? 'ipv4' : 'ipv6');
  }

  /**
   * The headers the request is scheduled by: as sent from a trusted source; otherwise without the
   * scheduling headers, so tenant and objective fall back to their defaults. Also says whether
   * anything was stripped.
   */
  filter(headers: IncomingHttpHeaders, remoteAddress: string | undefined): { headers: IncomingHttpHeaders; stripped: boolean } {
    if (this.trusts(remoteAddress)) return { headers, stripped: false };
    const kept = { ...headers };
    let stripped = false;
    for (const name of SCHEDULING_HEADERS) {
      if (name in kept) {
        delete kept[name];
        stripped = true;
      }
    }
    return { headers: kept, stripped };
  }
}
