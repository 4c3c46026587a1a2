/**
 * A set of strings that knows which one was used least recently: `touch` makes an entry the most
 * recent (adding it if new), `evictOldest` removes the least recent.
 *
 * Why not a Set in insertion order (delete + add to refresh)? The router refreshes every block of
 * every prompt it routes, and a Set's delete leaves a hole that add cannot reuse, so refreshes
 * churned the table into rehashes: it was the twin's hottest line. Here a refresh overwrites the
 * entry's stamp in place and appends (hash, stamp) to a queue; the queue's head is the oldest
 * live entry once the entries whose stamp has moved on (refreshed or deleted) are skipped. The
 * queue is compacted when stale entries outnumber live ones (or its consumed head is most of it),
 * so its memory stays within a small multiple of the set's size.
 */
export class LruSet {
  /** Each live entry's last-use stamp. */
  private readonly stampOf = new Map<string, number>();
  /** Uses in order; an element is stale when its stamp is no longer the entry's. */
  private queue: string[] = [];
  private queueStamps: number[] = [];
  private head = 0;
  private clock = 0;

  get size(): number {
    return this.stampOf.size;
  }

  has(key: string): boolean {
    return this.stampOf.has(key);
  }

  /** Makes `key` the most recently used; returns true if it was not in the set. */
  touch(key: string): boolean {
    const added = !this.stampOf.has(key);
    const stamp = ++this.clock;
    this.stampOf.set(key, stamp);
    this.queue.push(key);
    this.queueStamps.push(stamp);
    // Compact when stale elements outnumber live ones, or when the consumed head is most of the
    // array (evictions alone never leave stale elements behind, but the array still grows).
    const pending = this.queue.length - this.head;
    if (pending > 2 * this.stampOf.size + 64 || this.head > Math.max(1024, pending)) this.compact();
    return added;
  }

  delete(key: string): boolean {
    // Its queue element goes stale: no stamp matches it any more.
    return this.stampOf.delete(key);
  }

  /** Removes and returns the least recently used key; only while the set is not empty. */
  evictOldest(): string {
    for (;;) {
      const key = this.queue[this.head]!;
      const stamp = this.queueStamps[this.head]!;
      this.head++;
      if (this.stampOf.get(key) === stamp) {
        this.stampOf.delete(key);
        return key;
      }
    }
  }

  keys(): IterableIterator<string> {
    return this.stampOf.keys();
  }

  /** Keeps only the live elements, in order. */
  private compact(): void {
    const queue: string[] = [];
    const stamps: number[] = [];
    for (let i = this.head; i < this.queue.length; i++) {
      const key = this.queue[i]!;
      const stamp = this.queueStamps[i]!;
      if (this.stampOf.get(key) === stamp) {
        queue.push(key);
        stamps.push(stamp);
      }
    }
    this.queue = queue;
    this.queueStamps = stamps;
    this.head = 0;
  }
}
