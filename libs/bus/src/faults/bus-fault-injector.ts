import type { BusFaultRule, BusFaultStats } from '@sluice/contracts';
import { BusFaultRules, type FaultDecision } from './bus-fault-rules.js';

/**
 * The timed half of bus fault injection, for the Bus: takes the rules' decision for a message,
 * counts what it applies, and holds delayed sends on timers it can flush at shutdown.
 */
export class BusFaultInjector {
  readonly rules: BusFaultRules;
  private readonly counts = { delayed: 0, dropped: 0, duplicated: 0 };
  /** Delayed sends not yet due, so that drain can send them at once instead of losing them. */
  private readonly pending = new Map<NodeJS.Timeout, () => void>();

  /** `onError`: a held send that throws when it is due (the connection closed meanwhile) is reported, not thrown from a timer. */
  constructor(
    random: () => number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.rules = new BusFaultRules(random);
  }

  /** What the rules decide for one message, counted as applied. */
  decide(subject: string): FaultDecision | undefined {
    const fault = this.rules.decide(subject);
    if (fault === undefined) return undefined;
    if (fault.drop) this.counts.dropped++;
    if (fault.delayMs > 0) this.counts.delayed++;
    if (fault.duplicate) this.counts.duplicated++;
    return fault;
  }

  /** A fire-and-forget send, made now, later, twice or never, as the rules decide. */
  send(subject: string, send: () => void): void {
    const fault = this.decide(subject);
    if (fault?.drop) return;
    const sendAll = fault?.duplicate
      ? () => {
          send();
          send();
        }
      : send;
    if (fault !== undefined && fault.delayMs > 0) this.later(fault.delayMs, sendAll);
    else sendAll();
  }

  /** Resolves after at least `ms` (or at once if the bus drains meanwhile). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.later(ms, resolve));
  }

  /**
   * Runs `fn` no sooner than `ms` from now. A Node timer can fire up to a few ms early (it counts
   * from the event loop's cached time, taken before this call), and a fault's delay is a floor
   * that chaos scenarios and tests rely on, so an early timer is armed again for the rest.
   */
  private later(ms: number, fn: () => void): void {
    const due = performance.now() + ms;
    const arm = (wait: number): void => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        const left = due - performance.now();
        if (left > 0) arm(Math.ceil(left));
        else this.run(fn);
      }, wait);
      this.pending.set(timer, fn);
    };
    arm(ms);
  }

  /** At shutdown: runs every held send now, so closing neither waits out the delays nor loses what was sent. */
  flush(): void {
    const due = [...this.pending];
    this.pending.clear();
    for (const [timer, fn] of due) {
      clearTimeout(timer);
      this.run(fn);
    }
  }

  private run(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.onError(error);
    }
  }

  stats(): BusFaultStats {
    return { ...this.counts };
  }
}

/** One line for logs: `sluice.v1.worker.*.load: delay 100+0..50 ms, drop 10%, duplicate 0%`. */
export function describeBusFaultRule(rule: BusFaultRule): string {
  const delay = rule.jitterMs > 0 ? `${rule.delayMs}+0..${rule.jitterMs}` : String(rule.delayMs);
  return `${rule.subject}: delay ${delay} ms, drop ${rule.dropPercent}%, duplicate ${rule.duplicatePercent}%`;
}
