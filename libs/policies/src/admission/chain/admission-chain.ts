import type { Micros } from '@sluice/contracts';
import { z } from 'zod';
import type { ClusterView, PolicyRequest } from '../../cluster-view.js';
import type { AdmissionDecision, AdmissionPolicy } from '../admission-policy.js';
import { ALWAYS_ADMIT } from '../always-admit/always-admit.policy.js';
import { ADMISSION_POLICY_NAMES, type AdmissionPolicyName } from '../registry.js';
import { REJECT_ALL } from '../reject-all/reject-all.policy.js';

/**
 * `admission.policy`: one policy, or a chain of them checked in order. Written as a name
 * (`token-bucket`), a comma-separated list (`busy-threshold,token-bucket`, handy in a flag or an
 * environment variable) or a YAML list. A chain that cannot work as written is refused, naming
 * the entry: an unknown or repeated name, `always-admit` beside others (it would do nothing),
 * `reject-all` before others (they would never run).
 */
export const AdmissionChainSchema = z
  .union([z.string(), z.array(z.string())])
  .superRefine((value, ctx) => {
    const problem = chainProblem(chainNames(value));
    // A list's entry is named by its index; a comma-separated string's by its name in the message.
    if (problem) ctx.addIssue({ code: 'custom', path: Array.isArray(value) && problem.index !== undefined ? [problem.index] : [], message: problem.message });
  })
  .transform((value) => chainNames(value) as AdmissionPolicyName[]);

/** The names of a chain as written: a list, or one string of comma-separated names. */
export function chainNames(value: string | readonly string[]): string[] {
  return typeof value === 'string' ? value.split(',').map((name) => name.trim()) : [...value];
}

/** What is wrong with a chain as written, naming the entry; undefined when it can run. */
export function chainProblem(names: readonly string[]): { readonly index?: number; readonly message: string } | undefined {
  if (names.length === 0 || (names.length === 1 && names[0] === '')) return { message: `name at least one admission policy; allowed: ${ADMISSION_POLICY_NAMES.join(', ')}` };
  const seen = new Set<string>();
  for (const [index, name] of names.entries()) {
    if (!(ADMISSION_POLICY_NAMES as readonly string[]).includes(name)) {
      return { index, message: `unknown admission policy "${name}"; allowed: ${ADMISSION_POLICY_NAMES.join(', ')}` };
    }
    if (seen.has(name)) return { index, message: `"${name}" is listed twice: each check runs once` };
    seen.add(name);
    if (names.length > 1 && name === ALWAYS_ADMIT) return { index, message: `${ALWAYS_ADMIT} admits everything: in a chain it does nothing; leave it out` };
    if (name === REJECT_ALL && index < names.length - 1) return { index, message: `${REJECT_ALL} rejects everything: the checks after it would never run` };
  }
  return undefined;
}

/** One check that ran, with its own decision (its inputs become span attributes). */
export interface CheckOutcome {
  readonly policy: AdmissionPolicyName;
  readonly decision: AdmissionDecision;
}

/**
 * The chain's decision: the first rejection, else an admission. `decidedBy` is the check whose
 * answer stood (the one that rejected, else the last one); `inputs` are its inputs, and `checks`
 * every check that ran, in order.
 */
export type ChainDecision = AdmissionDecision & {
  readonly decidedBy: AdmissionPolicyName;
  readonly checks: readonly CheckOutcome[];
  /** The whole chain, in order (the checks after a rejection did not run). */
  readonly chain: readonly AdmissionPolicyName[];
};

/**
 * An ordered chain of admission checks, as an ingress filter chain runs: each check in turn; the
 * first that rejects ends the request with its reason and the later ones do not run. Checks are
 * independent policies, each with its own state: a check that charges (the token bucket) charges
 * when it admits, even if a later check then rejects, so it belongs last when only admitted
 * requests should pay. A chain of one is that policy alone, as before chains existed.
 */
export class AdmissionChain {
  readonly names: readonly AdmissionPolicyName[];

  constructor(readonly checks: readonly { readonly name: AdmissionPolicyName; readonly policy: AdmissionPolicy }[]) {
    if (checks.length === 0) throw new Error('an admission chain needs at least one check');
    this.names = checks.map((c) => c.name);
  }

  /** Whether any check reads the prefix index (then the caller keeps one). */
  get readsPrefix(): boolean {
    return this.checks.some((c) => c.policy.readsPrefix === true);
  }

  decide(request: PolicyRequest, cluster: ClusterView, nowUs: Micros, replicas?: number): ChainDecision {
    const ran: CheckOutcome[] = [];
    for (const { name, policy } of this.checks) {
      const decision = policy.decide(request, cluster, nowUs, replicas);
      ran.push({ policy: name, decision });
      if (!decision.admit) return { ...decision, decidedBy: name, checks: ran, chain: this.names };
    }
    const last = ran.at(-1)!;
    return { admit: true, inputs: last.decision.inputs, decidedBy: last.policy, checks: ran, chain: this.names };
  }
}
