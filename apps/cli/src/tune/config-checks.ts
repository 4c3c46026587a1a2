import { ConfigError, loadConfig, type SluiceConfig } from '@sluice/config';
import type { Param, ParamSet } from '@sluice/tune';
import { paramArgs } from './read-space.js';

/** The ends of a parameter's range, or each of its choices: the values to try the config with. */
function extremes(p: Param): ParamSet[] {
  return p.kind === 'choice' ? p.choices.map((c) => ({ [p.path]: c })) : [{ [p.path]: p.min }, { [p.path]: p.max }];
}

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
 * of real time, the one gateway, and where processes listen.
 */
export function notModelledInTwin(path: string): string | undefined {
  if (path === 'worker.timeScale') return 'the twin runs the model at its own speed: worker.timeScale is not modelled';
  if (path === 'gateway.replicas') return 'the twin runs one gateway (docs/twin.md, "Stage replicas")';
  if (path.startsWith('nats.') || /\.(host|port)$/.test(path)) return 'the twin has no processes or bus connections: the key is not modelled';
  return undefined;
}

/**
 * The base config and every parameter at each end of its range (each choice) go through the same
 * loadConfig as a run, so a key that does not exist or a range the schema refuses is found before
 * the first trial, with the config's own message naming the key. A parameter that could not change
 * a trial (a policy's that does not run, a key the twin does not model) is refused with the
 * reason. Returns problems, one line each.
 */
export function configProblems(baseArgs: readonly string[], params: readonly Param[], env: NodeJS.ProcessEnv): string[] {
  let base: SluiceConfig;
  try {
    base = loadConfig({ env, argv: baseArgs });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `base config: ${p}`);
    throw error;
  }
  const problems: string[] = [];
  for (const p of params) {
    const notModelled = notModelledInTwin(p.path);
    const inert = inertParam(p.path, base, params);
    if (notModelled !== undefined) problems.push(`parameters.${p.path}: ${notModelled}`);
    else if (inert !== undefined) problems.push(`parameters.${p.path}: ${inert} in base.set`);
    for (const set of extremes(p)) {
      try {
        loadConfig({ env, argv: [...baseArgs, ...paramArgs(set)] });
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems.push(...error.problems.map((m) => `parameters.${p.path} = ${JSON.stringify(set[p.path])}: ${m}`));
        break;
      }
    }
  }
  return problems;
}
