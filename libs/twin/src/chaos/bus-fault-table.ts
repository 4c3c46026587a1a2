import { PROTOCOL_ROOT, moreSpecificPattern, subjectMatches, subjects } from '@sluice/contracts';

/** A bus fault rule as a scenario gives it (ms, percent). */
export interface TwinBusRule {
  readonly subject: string;
  readonly delayMs: number;
  readonly jitterMs: number;
  readonly dropPercent: number;
  readonly duplicatePercent: number;
}

/** What becomes of one message on a faulted subject. */
export type BusVerdict = { readonly drop: true } | { readonly drop: false; readonly delayUs: number };

/**
 * The bus fault rules in force in a twin run and the decision for each message the twin carries on
 * a subject: the most specific matching rule applies (as on the live bus); a drop is drawn first,
 * then the jitter, from the run's seeded source, only for the knobs that are on. Duplicates are not
 * drawn: every stage serves each attempt once, so a second copy changes nothing (the live design),
 * and the twin leaves them out.
 */
export class BusFaultTable {
  private readonly rules: TwinBusRule[] = [];

  constructor(private readonly random: () => number) {}

  /** True while any rule is in force: the hops ask for a decision only then. */
  get active(): boolean {
    return this.rules.length > 0;
  }

  /** Adds the rule, or replaces the one with exactly the same pattern. */
  set(rule: TwinBusRule): void {
    const at = this.rules.findIndex((r) => r.subject === rule.subject);
    if (at === -1) this.rules.push(rule);
    else this.rules[at] = rule;
  }

  /** Removes the rule with exactly this pattern. */
  clear(subject: string): void {
    const at = this.rules.findIndex((r) => r.subject === subject);
    if (at !== -1) this.rules.splice(at, 1);
  }

  /** The fate of one message on `subject`, or undefined when no rule applies. */
  decide(subject: string): BusVerdict | undefined {
    let best: TwinBusRule | undefined;
    for (const rule of this.rules) {
      if (subjectMatches(rule.subject, subject) && (best === undefined || moreSpecificPattern(rule.subject, best.subject))) best = rule;
    }
    if (best === undefined) return undefined;
    if (best.dropPercent > 0 && this.random() * 100 < best.dropPercent) return DROP;
    const jitterMs = best.jitterMs > 0 ? Math.floor(this.random() * (best.jitterMs + 1)) : 0;
    return { drop: false, delayUs: (best.delayMs + jitterMs) * 1000 };
  }
}

const DROP: BusVerdict = Object.freeze({ drop: true });

/** The subjects the twin carries, what each stands for, and a stand-in instance id for the per-instance ones. */
const CARRIED = (instanceId: string) =>
  [
    [subjects.admissionSubmit(), 'gateway → admission'],
    [subjects.flowSubmit(), 'admission → flow control (and the gateway re-submitting to it)'],
    [subjects.routerSubmit(), 'flow control → router (and the gateway re-submitting to it)'],
    [subjects.workerSubmit(instanceId), 'router → worker instance'],
    [subjects.workerLoad(instanceId), 'load snapshots'],
  ] as const;

/** Subjects of the live protocol the twin does not carry as messages: a rule on them changes nothing here. */
const NOT_CARRIED = (instanceId: string) =>
  [
    [subjects.workerLifecycle(instanceId), 'lifecycle and heartbeats'],
    [subjects.workerDone(instanceId), 'done events'],
    [subjects.workerKv(instanceId), 'KV events'],
    [`${PROTOCOL_ROOT}.inbox.gateway.request`, 'tokens and frames to the gateway'],
    [subjects.requestCancel(), 'cancels'],
    [`${PROTOCOL_ROOT}.service.router.process.presence`, 'presence'],
  ] as const;

/**
 * Which of the twin's hops a rule's pattern reaches, and which live subjects it names that the twin
 * does not carry (for the report). `instanceIds` are the twin's: a pattern naming a live instance
 * id matches none of them.
 */
export function busRuleReach(pattern: string, instanceIds: readonly string[]): { readonly hops: string[]; readonly notCarried: string[] } {
  const ids = instanceIds.length > 0 ? instanceIds : ['instance'];
  const reached = (table: (id: string) => readonly (readonly [string, string])[]) => {
    const names = new Set<string>();
    for (const id of ids) for (const [subject, name] of table(id)) if (subjectMatches(pattern, subject)) names.add(name);
    return [...names];
  };
  return { hops: reached(CARRIED), notCarried: reached(NOT_CARRIED) };
}
