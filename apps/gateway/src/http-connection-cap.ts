import { readFileSync } from 'node:fs';
import { ConfigError, type SluiceConfig } from '@sluice/config';

/**
 * File descriptors kept out of the connection cap: the bus, log and config files, the listening
 * sockets, and connections being refused (each holds one until it is answered and closed). A tenth
 * of the limit, and never fewer than 256.
 */
export function fdReserveOf(softLimit: number): number {
  return Math.max(256, Math.ceil(softLimit / 10));
}

/** Used when the open-file limit cannot be read (not Linux): Node's usual limit on macOS is far above it. */
export const FALLBACK_MAX_CONNECTIONS = 8_192;

/**
 * The soft limit on open files of this process (Node raises it to the hard limit at start-up),
 * from /proc/self/limits; undefined where there is no such file. Node has no API for it.
 */
export function softOpenFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+|unlimited)/m.exec(text)?.[1];
  if (soft === undefined || soft === 'unlimited') return undefined;
  return Number(soft);
}

/**
 * The gateway's cap on open client connections: `auto` is the open-file limit less its reserve; a
 * configured number must stay under that, or the process would run out of descriptors before the
 * cap binds (accept fails, every client sees resets, nothing is answered), so it is refused at
 * start-up naming the key. A per-client cap above a configured global one would never bind:
 * refused too. Under `auto` it is not, so that the defaults start on a machine with a low limit
 * (a container's 1 024); the gateway logs both caps at start-up (http-server-limits.ts).
 */
export function connectionCapOf(limits: SluiceConfig['gateway']['limits'], softLimit: number | undefined): number {
  const usable = softLimit === undefined ? undefined : softLimit - fdReserveOf(softLimit);
  const problems: string[] = [];
  let cap: number;
  if (limits.maxConnections === 'auto') cap = usable === undefined ? FALLBACK_MAX_CONNECTIONS : Math.max(1, usable);
  else {
    cap = limits.maxConnections;
    if (usable !== undefined && cap > usable) {
      problems.push(`gateway.limits.maxConnections: ${cap} cannot take effect: this process may open ${softLimit} files (ulimit -n) and keeps ${fdReserveOf(softLimit!)} of them for itself, so at most ${Math.max(1, usable)}; raise the limit or lower the cap`);
    }
  }
  if (limits.maxConnections !== 'auto' && limits.maxConnectionsPerClient > cap) {
    problems.push(`gateway.limits.maxConnectionsPerClient: ${limits.maxConnectionsPerClient} is above the gateway's cap of ${cap} connections in all (gateway.limits.maxConnections) and would never bind; lower it (0 = no per-client cap)`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return cap;
}
