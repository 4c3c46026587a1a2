import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './command-line.js';
import { ConfigError } from './config.error.js';
import { loadConfig } from './load-config.js';

describe('parseCommandLine', () => {
  const parse = (...argv: string[]) => parseCommandLine(argv, { flags: ['no-demo', 'help'] }, '/home/me');

  it('keeps a command’s own flags away from the config flags the services get', () => {
    const { flags, configArgs, overrides, problems } = parse('--no-demo', '--gateway.port=8081', '--worker.instances', '8');
    expect([...flags]).toEqual(['no-demo']);
    expect(configArgs).toEqual(['--gateway.port=8081', '--worker.instances=8']);
    expect(overrides).toEqual([
      { path: ['gateway', 'port'], text: '8081' },
      { path: ['worker', 'instances'], text: '8' },
    ]);
    expect(problems).toEqual([]);
  });

  it('makes --config absolute so every process reads the same file', () => {
    expect(parse('--config', 'sluice.yaml').configArgs).toEqual(['--config', '/home/me/sluice.yaml']);
    expect(parse('--config=/etc/sluice.yaml').configArgs).toEqual(['--config', '/etc/sluice.yaml']);
    // Without a cwd (a service reading its own argv) the name stays as given.
    expect(parseCommandLine(['--config', 'sluice.yaml']).configFile).toBe('sluice.yaml');
  });

  it('reports unknown options, stray arguments and missing values, one line each naming the flag', () => {
    expect(parse('--verbose').problems).toEqual(['unknown option --verbose']);
    expect(parse('-v').problems).toEqual(['unknown option -v']);
    expect(parse('up').problems).toEqual(['unexpected argument "up"']);
    expect(parse('--gateway.port').problems).toEqual(['--gateway.port needs a value (--gateway.port=VALUE)']);
    expect(parse('--config', '--no-demo').problems).toEqual(['--config needs a value (--config=VALUE)']);
    expect(parse('--config=').problems).toEqual(['--config needs a file name']);
    expect(parse('--no-demo=1').problems).toEqual(['--no-demo takes no value']);
    expect(parse('--verbose', 'up').problems).toHaveLength(2);
  });

  it('reads -h and --help where the command takes help, and only there', () => {
    expect(parse('-h').flags.has('help')).toBe(true);
    expect(parse('--help').flags.has('help')).toBe(true);
    expect(parseCommandLine(['-h']).problems).toEqual(['unknown option -h']);
  });

  it('reads value options and positionals only when the command declares them', () => {
    const spec = { flags: ['json'], values: ['instance', 'slowdown'], maxPositionals: 1 };
    const parsed = parseCommandLine(['faults', '--instance', 'w-r0', '--slowdown=2', '--json', '--nats.url=nats://x:4222'], spec, '/');
    expect(parsed.positionals).toEqual(['faults']);
    expect([...parsed.values]).toEqual([
      ['instance', 'w-r0'],
      ['slowdown', '2'],
    ]);
    expect(parsed.configArgs).toEqual(['--nats.url=nats://x:4222']);
    expect(parsed.problems).toEqual([]);
    expect(parseCommandLine(['faults', 'extra'], spec, '/').problems).toEqual(['unexpected argument "extra"']);
    expect(parseCommandLine(['--instance'], spec, '/').problems).toEqual(['--instance needs a value (--instance=VALUE)']);
    // A negative number is a value, not an option.
    expect(parseCommandLine(['--slowdown', '-1'], spec, '/').values.get('slowdown')).toBe('-1');
  });
});

describe('a flag means the same to a command and to loadConfig (a service’s main)', () => {
  const problemsOf = (argv: string[]): readonly string[] => {
    try {
      loadConfig({ argv });
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it('takes `--key value` and `--key=value` alike', () => {
    expect(loadConfig({ argv: ['--worker.instances', '6'] }).worker.instances).toBe(6);
    expect(loadConfig({ argv: ['--worker.instances=6'] }).worker.instances).toBe(6);
  });

  it('reads back the config flags a command hands on unchanged', () => {
    const { configArgs } = parseCommandLine(['--gateway.port', '8081', '--no-demo'], { flags: ['no-demo'] }, '/');
    expect(loadConfig({ argv: configArgs }).gateway.port).toBe(8081);
  });

  it('gives the same problem lines as the command would', () => {
    for (const argv of [['--gateway.port'], ['--verbose'], ['stray'], ['--config=']]) {
      expect(problemsOf(argv)).toEqual(parseCommandLine(argv).problems);
      expect(problemsOf(argv)).toHaveLength(1);
    }
  });
});
