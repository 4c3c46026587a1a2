import { ConfigError, loadConfig, type SluiceConfig } from '@sluice/config';
import type { Param, ParamSet } from '@sluice/tune';
import { inertParam, notModelledInTwin } from '../run/twin-effect.js';
import { paramArgs } from './read-space.js';

/** The ends of a parameter's range, or each of its choices: the values to try the config with. */
function extremes(p: Param): ParamSet[] {
  return p.kind === 'choice' ? p.choices.map((c) => ({ [p.path]: c })) : [{ [p.path]: p.min }, { [p.path]: p.max }];
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
