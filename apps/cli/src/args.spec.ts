import { describe, expect, it } from 'vitest';
import { splitArgs } from './args.js';

describe('splitArgs', () => {
  const split = (...argv: string[]) => splitArgs(argv, { flags: ['no-demo', 'help'] }, '/home/me');

  it('keeps CLI-only flags away from the config flags the services get', () => {
    const { flags, configArgs, problems } = split('--no-demo', '--gateway.port=8081', '--worker.instances', '8');
    expect([...flags]).toEqual(['no-demo']);
    expect(configArgs).toEqual(['--gateway.port=8081', '--worker.instances=8']);
    expect(problems).toEqual([]);
  });

  it('makes --config absolute so every process reads the same file', () => {
    expect(split('--config', 'sluice.yaml').configArgs).toEqual(['--config', '/home/me/sluice.yaml']);
    expect(split('--config=/etc/sluice.yaml').configArgs).toEqual(['--config', '/etc/sluice.yaml']);
  });

  it('reports unknown options, stray arguments and missing values', () => {
    expect(split('--verbose').problems).toEqual(['unknown option --verbose']);
    expect(split('up').problems).toEqual(['unexpected argument "up"']);
    expect(split('--gateway.port').problems).toEqual(['--gateway.port needs a value (--gateway.port=VALUE)']);
    expect(split('--config', '--no-demo').problems).toEqual(['--config needs a value (--config=VALUE)']);
    expect(split('--no-demo=1').problems).toEqual(['--no-demo takes no value']);
  });

  it('reads -h and --help', () => {
    expect(split('-h').flags.has('help')).toBe(true);
    expect(split('--help').flags.has('help')).toBe(true);
  });

  it('reads value options and positionals only when the command declares them', () => {
    const opts = { flags: ['json'], values: ['instance', 'slowdown'], maxPositionals: 1 };
    const parsed = splitArgs(['faults', '--instance', 'w-r0', '--slowdown=2', '--json', '--nats.url=nats://x:4222'], opts, '/');
    expect(parsed.positionals).toEqual(['faults']);
    expect([...parsed.values]).toEqual([['instance', 'w-r0'], ['slowdown', '2']]);
    expect(parsed.configArgs).toEqual(['--nats.url=nats://x:4222']);
    expect(parsed.problems).toEqual([]);
    expect(splitArgs(['faults', 'extra'], opts, '/').problems).toEqual(['unexpected argument "extra"']);
    expect(splitArgs(['--instance'], opts, '/').problems).toEqual(['--instance needs a value (--instance=VALUE)']);
  });
});
