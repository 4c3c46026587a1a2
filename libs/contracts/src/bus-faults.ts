import { z } from 'zod';

/**
 * Bus fault injection (chaos runs), in the manner of Envoy's fault filter: a rule on a NATS
 * subject pattern delays, drops or duplicates what a process sends on the matching subjects.
 * Every process's bus answers `subjects.busFaults('get' | 'set' | 'clear')` with its own rules.
 */

/**
 * Why a subject pattern is refused, or undefined when it is a valid NATS pattern: tokens
 * separated by '.', none empty nor with whitespace; `*` stands for one token and `>` for all the
 * rest, so each must be a whole token and `>` the last one. (NATS itself would take `a*` as a
 * literal token; refusing it here catches the typo for `a.*` before a rule silently matches nothing.)
 */
export function subjectPatternProblem(pattern: string): string | undefined {
  if (pattern === '') return 'must not be empty';
  const tokens = pattern.split('.');
  for (const [i, t] of tokens.entries()) {
    if (t === '') return `token ${i + 1} is empty: tokens are separated by single dots`;
    if (/\s/.test(t)) return `token ${i + 1} ("${t}") contains whitespace`;
    if (t !== '*' && t !== '>' && /[*>]/.test(t)) return `token ${i + 1} ("${t}"): a wildcard (* or >) must be a whole token`;
    if (t === '>' && i !== tokens.length - 1) return '">" matches the rest of a subject, so it must be the last token';
  }
  return undefined;
}

export const SubjectPatternSchema = z.string().superRefine((pattern, ctx) => {
  const problem = subjectPatternProblem(pattern);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `not a NATS subject pattern: ${problem}` });
});

const Ms = z.number().int('must be a whole number of ms').nonnegative('must be >= 0');
const Percent = z.number().min(0, 'must be >= 0').max(100, 'must be <= 100');

/** One rule: what happens to each message sent on a subject the pattern matches. */
export const BusFaultRuleSchema = z.strictObject({
  subject: SubjectPatternSchema,
  /** Every matching message is held this long before it is sent. */
  delayMs: Ms.default(0),
  /** Plus a uniform extra delay in [0, jitterMs] (whole ms), drawn per message. */
  jitterMs: Ms.default(0),
  /** Share of matching messages not sent at all. */
  dropPercent: Percent.default(0),
  /** Share of matching messages (of those not dropped) sent twice. */
  duplicatePercent: Percent.default(0),
});
export type BusFaultRule = z.infer<typeof BusFaultRuleSchema>;
export type BusFaultRuleInput = z.input<typeof BusFaultRuleSchema>;

/** `busFaults('set')`: adds the rule, or replaces the one with exactly the same pattern. */
export const SetBusFaultSchema = BusFaultRuleSchema;

/** `busFaults('clear')`: removes the rule with exactly this pattern, or every rule when omitted. */
export const ClearBusFaultsSchema = z.strictObject({ subject: SubjectPatternSchema.optional() });
export type ClearBusFaults = z.infer<typeof ClearBusFaultsSchema>;

/** `busFaults('get')` takes nothing. */
export const GetBusFaultsSchema = z.strictObject({});

/** How many messages a process's bus has faulted since it started (a duplicate counts once). */
export const BusFaultStatsSchema = z.strictObject({
  delayed: z.number().int().nonnegative(),
  dropped: z.number().int().nonnegative(),
  duplicated: z.number().int().nonnegative(),
});
export type BusFaultStats = z.infer<typeof BusFaultStatsSchema>;

/** What every process answers to the three verbs: who it is, its rules (in the order set), its counts. */
export const BusFaultsStateSchema = z.strictObject({
  process: z.string().min(1),
  rules: z.array(BusFaultRuleSchema),
  applied: BusFaultStatsSchema,
});
export type BusFaultsState = z.infer<typeof BusFaultsStateSchema>;
