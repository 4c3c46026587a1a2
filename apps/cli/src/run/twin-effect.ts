import type { SluiceConfig } from '@sluice/config';
import type { Param } from '@sluice/tune';

/* Whether a config key can take effect in a twin run: the rules `sluice tune` and `sluice experiment` refuse a key by. */

/** Sections whose `policies.<name>` parameters act only while `<section>.policy` names that policy. */
const POLICY_SECTIONS = ['admission', 'router'] as const;

/**
 * Whether a parameter can change anything: `admission.policies.slo-predictive.headroom` does
 * nothing while admission runs another policy, so a search over it would tune noise. A policy
 * named anywhere in `<section>.policy` counts (a single name or a chain), as does a search over
 * `<section>.policy` itself whose choices name it.
 */
export function inertParam(path: string, config: SluiceConfig, params: readonly Param[] = []): string | undefined {
  for (const section of POLICY_SECTIONS) {
    const match = new RegExp(`^${section}\\.policies\\.([^.]+)\\.`).exec(path);
    if (!match) continue;
    const name = match[1]!;
    // Busy thresholds are the cluster's: the routers route by them whatever the admission chain.
    if (section === 'admission' && name === 'busy-threshold') continue;
    const policy: string | readonly string[] = config[section].policy;
    const named = typeof policy === 'string' ? [policy] : policy;
    const active = named.includes(name);
    const searched = params.some((q) => q.path === `${section}.policy` && q.kind === 'choice' && q.choices.some((c) => String(c).split(',').includes(name)));
    if (!active && !searched) return `${section}.policy is ${JSON.stringify(named.join(','))}, so ${name}'s parameters take no effect; set ${section}.policy: ${name}`;
  }
  return undefined;
}

/**
 * Keys the twin does not model (docs/twin.md), so a trial would not see them change: the speed-up
 * of real time, the one gateway, where processes listen, and what their metrics pages hold.
 */
export function notModelledInTwin(path: string): string | undefined {
  if (path === 'worker.timeScale') return 'the twin runs the model at its own speed: worker.timeScale is not modelled';
  if (path === 'gateway.replicas') return 'the twin runs one gateway (docs/twin.md, "Stage replicas")';
  if (path.startsWith('nats.') || /\.(host|port)$/.test(path)) return 'the twin has no processes or bus connections: the key is not modelled';
  if (path.startsWith('metrics.')) return 'the twin serves no /metrics pages: metrics.* is not modelled';
  return undefined;
}

