import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SpaceError, parseSpace, type ParamSet, type Space } from '@sluice/tune';

/** A space file read from disk, with its files resolved against the space file's folder. */
export interface LoadedSpace extends Space {
  readonly spaceFile: string;
  readonly workloadFile: string;
  /** The base config as flags: `--config FILE` (when given), then base.set's keys. */
  readonly baseArgs: readonly string[];
}

/** A value as a `--key=value` flag's text: YAML, which JSON is, so strings, numbers and maps keep their types. */
export function flagValue(value: unknown): string {
  return JSON.stringify(value);
}

/** A trial's settings as config flags, after the base's (a later flag wins). */
export function paramArgs(params: ParamSet): string[] {
  return Object.entries(params).map(([path, value]) => `--${path}=${flagValue(value)}`);
}

/** Reads SPACE.yaml; throws SpaceError naming the file or the key path. */
export function readSpace(file: string): LoadedSpace {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SpaceError([`cannot read ${file}: ${(error as Error).message}`], { cause: error });
  }
  const space = parseSpace(doc);
  const dir = dirname(file);
  const { base } = space.file;
  const baseArgs = [...(base.config === undefined ? [] : ['--config', resolve(dir, base.config)]), ...Object.entries(base.set).map(([k, v]) => `--${k}=${flagValue(v)}`)];
  return { ...space, spaceFile: file, workloadFile: resolve(dir, space.file.workload), baseArgs };
}
