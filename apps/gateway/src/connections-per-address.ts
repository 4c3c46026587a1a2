/**
 * Open connections per client address, with a cap: one client cannot take every file descriptor
 * and socket buffer the gateway has, whatever else it does. Entries go when their last
 * connection closes, so the map holds only addresses with something open.
 */
export class ConnectionsPerAddress {
  private readonly open = new Map<string, number>();
  private count = 0;

  /** `cap` connections per address at most; 0 = no cap (counted all the same). */
  constructor(readonly cap: number) {}

  /** Counts a new connection from `address`, or refuses it (false, not counted): the address already holds `cap`. */
  tryOpen(address: string): boolean {
    const held = this.open.get(address) ?? 0;
    if (this.cap > 0 && held >= this.cap) return false;
    this.open.set(address, held + 1);
    this.count++;
    return true;
  }

  close(address: string): void {
    const held = this.open.get(address);
    if (held === undefined) return;
    if (held <= 1) this.open.delete(address);
    else this.open.set(address, held - 1);
    this.count--;
  }

  /** Open connections, all addresses together. */
  get total(): number {
    return this.count;
  }

  /** Addresses with a connection open. */
  get addresses(): number {
    return this.open.size;
  }
}

/** The address a connection is counted under: an IPv4 client on a dual-stack socket (`::ffff:a.b.c.d`) as IPv4. */
export function clientAddressOf(remoteAddress: string | undefined): string | undefined {
  if (remoteAddress === undefined) return undefined;
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress)?.[1] ?? remoteAddress;
}
