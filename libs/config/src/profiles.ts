import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './config.error.js';
import type { SluiceConfig } from './config.schema.js';
import { describeZodError } from '@sluice/contracts';
import { LatencyProfileSchema, type LatencyProfile } from '@sluice/engine';

/** The profiles shipped with the engine: YAML data files, one per model and GPU. */
export const BUILT_IN_PROFILES_DIR = fileURLToPath(new URL('../profiles/', import.meta.resolve('@sluice/engine')));

const PROFILE_FILE = /\.ya?ml$/;

function profileNames(dirs: readonly string[]): string[] {
  const names = new Set<string>();
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir)) if (PROFILE_FILE.test(file)) names.add(file.replace(PROFILE_FILE, ''));
  }
  return [...names].sort();
}

/**
 * Loads `worker.profile` (default: the served model's name) from `worker.profilesDir`, then from
 * the built-in profiles. A missing or invalid profile is a config error naming the key. The
 * worker serves with it; `sluice simulate` models the same instances with it.
 */
export function loadProfile(config: SluiceConfig): LatencyProfile {
  const name = config.worker.profile ?? config.worker.model;
  const dirs = [config.worker.profilesDir, BUILT_IN_PROFILES_DIR].filter((d): d is string => Boolean(d));
  for (const dir of dirs) {
    for (const ext of ['.yaml', '.yml']) {
      const file = join(dir, `${name}${ext}`);
      if (!existsSync(file)) continue;
      const result = LatencyProfileSchema.safeParse(parseYaml(readFileSync(file, 'utf8')));
      if (!result.success) throw new ConfigError(describeZodError(result.error).map((line) => `profile ${file}: ${line}`));
      return result.data;
    }
  }
  throw new ConfigError([`worker.profile: no profile "${name}"; allowed: ${profileNames(dirs).join(', ')}`]);
}
