import { PROTOCOL_ROOT, moreSpecificTokens, patternMatchesTokens, type BusFaultRule } from '@sluice/contracts';

/** What happens to one message. `delayMs` is whole ms; a dropped message has no delay nor copy. */
export interface FaultDecision {
  readonly drop: boolean;
  readonly delayMs: number;
  readonly duplicate: boolean;
}

/**
 * Control subjects are never faulted, whatever the rules say: a rule on `>` must not be able to
 * cut the very verbs that clear it.
 */
const CONTROL_PREFIX = `${PROTOCOL_ROOT}.control.`;

interface StoredRule {
  readonly rule: BusFaultRule;
  readonly tokens: readonly string[];
}

/**
 * One process's bus fault rules and the per-message decision (the pure part of bus fault
 * injection: no timers, no NATS; randomness comes from the injected source, so a seeded one
 * replays the same faults).
 *
 * Which rule applies when several patterns match a subject: the most specific one, compared token
 * by token from the left, where a literal token beats `*` and `*` beats `>` (so
 * `sluice.v1.worker.*.load` beats `sluice.v1.worker.>`, which beats `sluice.v1.>`), as the longest
 * prefix wins in a routing table. Two different patterns that match the same subject always differ
 * at some token, so the choice does not depend on the order the rules were set in.
 */
export class BusFaultRules {
  /** In the order set (a replaced rule keeps its place), which is the order `list` gives. */
  private readonly rules: StoredRule[] = [];

  constructor(private readonly random: () => number) {}

  /** The number of rules: the bus's fast path is this one check against 0. */
  get size(): number {
    return this.rules.length;
  }

  list(): BusFaultRule[] {
    return this.rules.map((r) => ({ ...r.rule }));
  }

  /** Adds the rule, or replaces the one with exactly the same pattern. */
  set(rule: BusFaultRule): 'added' | 'replaced' {
    const stored = { rule: { ...rule }, tokens: rule.subject.split('.') };
    const at = this.rules.findIndex((r) => r.rule.subject === rule.subject);
    if (at === -1) this.rules.push(stored);
    else this.rules[at] = stored;
    return at === -1 ? 'added' : 'replaced';
  }

  /** Removes the rule with exactly this pattern (not the rules it overlaps), or all of them; returns what went. */
  clear(subject?: string): BusFaultRule[] {
    const removed = this.rules.filter((r) => subject === undefined || r.rule.subject === subject);
    for (const r of removed) this.rules.splice(this.rules.indexOf(r), 1);
    return removed.map((r) => r.rule);
  }

  /** The rule that applies to a subject (see the class comment), or undefined. */
  match(subject: string): BusFaultRule | undefined {
    if (this.rules.length === 0 || subject.startsWith(CONTROL_PREFIX)) return undefined;
    const tokens = subject.split('.');
    let best: StoredRule | undefined;
    for (const r of this.rules) {
      if (patternMatchesTokens(r.tokens, tokens) && (best === undefined || moreSpecificTokens(r.tokens, best.tokens))) best = r;
    }
    return best?.rule;
  }

  /**
   * Decides one message's fate, or undefined when no rule applies. Draws from the random source
   * only for the knobs that are on (drop, then jitter, then duplicate), so a rule with only a
   * delay takes no draws.
   */
  decide(subject: string): FaultDecision | undefined {
    const rule = this.match(subject);
    if (rule === undefined) return undefined;
    if (rule.dropPercent > 0 && this.random() * 100 < rule.dropPercent) return DROP;
    const jitter = rule.jitterMs > 0 ? Math.floor(this.random() * (rule.jitterMs + 1)) : 0;
    const duplicate = rule.duplicatePercent > 0 && this.random() * 100 < rule.duplicatePercent;
    return { drop: false, delayMs: rule.delayMs + jitter, duplicate };
  }
}

const DROP: FaultDecision = Object.freeze({ drop: true, delayMs: 0, duplicate: false });
