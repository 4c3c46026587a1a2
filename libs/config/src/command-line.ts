import { isAbsolute, resolve } from 'node:path';

/*
 * One reading of a command line for every sluice process: `sluice up`, `sluice run` and the other
 * commands read their argv with it, and loadConfig reads a service's argv (and the config flags a
 * command hands on) with it too, so `--worker.instances 8` means the same everywhere and the same
 * mistake gets the same message.
 *
 * A tokenizer of our own rather than node:util's parseArgs: parseArgs must be told every option
 * and whether it takes a value, but a config key is any dotted path of the schema. Left undeclared
 * (strict: false), `--worker.instances 8` comes out of parseArgs as a boolean and a stray
 * positional. The rule that settles it here, "a dotted name is a config key and takes a value",
 * is the one parseArgs has no place for, and with it the whole parser is one short loop.
 */

/** What one command (or a service's main, with none of these) accepts besides config flags. */
export interface CommandLineSpec {
  /** Boolean flags, without `--` (e.g. `no-demo`, `json`); `-h` is `--help` when `help` is listed. */
  readonly flags?: readonly string[];
  /** Options with a value, `--out DIR` or `--out=DIR`, without `--`. */
  readonly values?: readonly string[];
  /** How many positional arguments (a sub-verb, a file) are allowed; default none. */
  readonly maxPositionals?: number;
}

/** `--gateway.port=8081`: the key path and the value as written (loadConfig reads it as YAML). */
export interface ConfigOverride {
  readonly path: readonly string[];
  readonly text: string;
}

export interface CommandLine {
  /** The boolean flags given, without `--`. */
  readonly flags: ReadonlySet<string>;
  /** The options given with their values, by name without `--`. */
  readonly values: ReadonlyMap<string, string>;
  readonly positionals: readonly string[];
  /** `--config FILE` (the last one given), absolute when a cwd was given. */
  readonly configFile?: string;
  /**
   * Files of the Endpoint Picker's config a command hands on (`--epp-config FILE`,
   * `--inference-objectives FILE`), by the config key they set, absolute when a cwd was given.
   */
  readonly files: ReadonlyMap<string, string>;
  /** `--key.path=value` flags, in order (a later one wins). */
  readonly overrides: readonly ConfigOverride[];
  /** The config flags again as every service takes them: `--config FILE`, then `--key.path=value`. */
  readonly configArgs: readonly string[];
  /** Usage problems, one line each, each naming the flag or argument. */
  readonly problems: readonly string[];
}

/** Options naming a file that sets a config key (docs/endpoint-picker-config.md), as `--config` names sluice.yaml. */
export const CONFIG_FILE_OPTIONS: Readonly<Record<string, string>> = { 'epp-config': 'eppConfig', 'inference-objectives': 'inferenceObjectivesFile' };

const CONFIG_KEY = /^[A-Za-z][\w-]*(\.[A-Za-z0-9_-]+)+$/;
/** `-5` or `-0.5` is a value, not an option. */
const NEGATIVE_NUMBER = /^-\d/;

/**
 * Reads argv: the command's own flags, options and positionals, `--config FILE` (made absolute
 * against `cwd` when given, so it names the same file to every process) and `--key.path=value`
 * overrides (also `--key.path value`). Whatever else is there is a usage problem.
 */
export function parseCommandLine(argv: readonly string[], spec: CommandLineSpec = {}, cwd?: string): CommandLine {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const positionals: string[] = [];
  const overrides: ConfigOverride[] = [];
  const problems: string[] = [];
  let configFile: string | undefined;
  const files = new Map<string, string>();
  const declaredFlags = spec.flags ?? [];

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-h' && declaredFlags.includes('help')) {
      flags.add('help');
      continue;
    }
    if (arg.startsWith('-') && !arg.startsWith('--') && !NEGATIVE_NUMBER.test(arg)) {
      problems.push(`unknown option ${arg}`);
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      if (arg !== '--' && positionals.length < (spec.maxPositionals ?? 0)) positionals.push(arg);
      else problems.push(`unexpected argument "${arg}"`);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (declaredFlags.includes(name)) {
      if (eq === -1) flags.add(name);
      else problems.push(`--${name} takes no value`);
      continue;
    }
    const isValueOption = spec.values?.includes(name) ?? false;
    const fileKey = Object.hasOwn(CONFIG_FILE_OPTIONS, name) ? CONFIG_FILE_OPTIONS[name] : undefined;
    if (!isValueOption && name !== 'config' && fileKey === undefined && !CONFIG_KEY.test(name)) {
      problems.push(`unknown option --${name}`);
      continue;
    }
    let value = eq === -1 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        problems.push(`--${name} needs a value (--${name}=VALUE)`);
        continue;
      }
      value = next;
      i++;
    }
    if (isValueOption) values.set(name, value);
    else if (fileKey !== undefined) {
      if (value === '') problems.push(`--${name} needs a file name`);
      else files.set(fileKey, cwd === undefined || isAbsolute(value) ? value : resolve(cwd, value));
    } else if (name !== 'config') overrides.push({ path: name.split('.'), text: value });
    else if (value === '') problems.push('--config needs a file name');
    else configFile = cwd === undefined || isAbsolute(value) ? value : resolve(cwd, value);
  }

  const fileArgs = Object.entries(CONFIG_FILE_OPTIONS).flatMap(([option, key]) => (files.has(key) ? [`--${option}`, files.get(key)!] : []));
  const configArgs = [...(configFile === undefined ? [] : ['--config', configFile]), ...fileArgs, ...overrides.map((o) => `--${o.path.join('.')}=${o.text}`)];
  return { flags, values, positionals, ...(configFile === undefined ? {} : { configFile }), files, overrides, configArgs, problems };
}
