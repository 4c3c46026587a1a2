import { isAbsolute, resolve } from 'node:path';

export interface SplitArgs {
  /** CLI-only boolean flags that were given (without `--`), e.g. `no-demo`. */
  readonly flags: ReadonlySet<string>;
  /** CLI-only options with a value (`--instance ID` or `--instance=ID`), by name without `--`. */
  readonly values: ReadonlyMap<string, string>;
  /** Arguments that are not options (a sub-verb, a workload file), in order. */
  readonly positionals: readonly string[];
  /** What goes to loadConfig and to the services: `--config ABS_PATH` and `--key.path=value` flags. */
  readonly configArgs: readonly string[];
  /** Usage problems, one line each. */
  readonly problems: readonly string[];
}

export interface CommandOptions {
  /** Boolean flags this command takes (e.g. `no-demo`, `help`). */
  readonly flags: readonly string[];
  /** Options with a value this command takes (e.g. `instance`). */
  readonly values?: readonly string[];
  /** How many positional arguments it takes at most (a sub-verb, a file); default none. */
  readonly maxPositionals?: number;
}

/**
 * Splits a command's argv into its own flags, options and positionals, and the config flags the
 * services get. `--config FILE` is made absolute (against cwd) so it means the same file to every
 * process; `--a.b=v` and `--a.b v` pass through as `--a.b=v`. Anything else is a usage problem.
 */
export function splitArgs(argv: readonly string[], options: CommandOptions, cwd: string): SplitArgs {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const positionals: string[] = [];
  const configArgs: string[] = [];
  const problems: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-h') {
      flags.add('help');
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      if (positionals.length < (options.maxPositionals ?? 0) && arg !== '--') positionals.push(arg);
      else problems.push(`unexpected argument "${arg}"`);
      continue;
    }
    const eq = arg.indexOf('=');
    const key = arg.slice(2, eq === -1 ? undefined : eq);
    if (options.flags.includes(key)) {
      if (eq !== -1) problems.push(`--${key} takes no value`);
      else flags.add(key);
      continue;
    }
    const isValueOption = options.values?.includes(key) ?? false;
    if (!isValueOption && key !== 'config' && !/^[A-Za-z][\w-]*(\.[A-Za-z0-9_-]+)+$/.test(key)) {
      problems.push(`unknown option --${key}`);
      continue;
    }
    let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        problems.push(`--${key} needs a value (--${key}=VALUE)`);
        continue;
      }
      value = next;
      i++;
    }
    if (isValueOption) {
      values.set(key, value);
    } else if (key === 'config') {
      if (value === '') problems.push('--config needs a file name');
      else configArgs.push('--config', isAbsolute(value) ? value : resolve(cwd, value));
    } else {
      configArgs.push(`--${key}=${value}`);
    }
  }
  return { flags, values, positionals, configArgs, problems };
}
