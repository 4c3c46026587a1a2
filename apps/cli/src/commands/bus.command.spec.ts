import { describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.js';
import { busCommand, parseBusFaultsRequest } from './bus.command.js';
import { EXIT } from './command.js';

/** Runs `sluice bus ...` up to where it would talk to NATS: usage errors stop before that. */
const bus = (...argv: string[]) => runInProcess(busCommand, argv, { rootDir: '/nonexistent', cwd: '/tmp' });

const request = (positionals: string[], values: Record<string, string> = {}) => parseBusFaultsRequest(positionals, new Map(Object.entries(values)));

describe('sluice bus faults: the request it sends', () => {
  it('get by default, set with the knobs as numbers and defaults filled, clear with or without a pattern', () => {
    expect(request(['faults'])).toEqual({ verb: 'get', payload: {} });
    expect(request(['faults', 'set'], { subject: 'sluice.v1.worker.*.load', 'delay-ms': '200', 'jitter-ms': '50', drop: '12.5' })).toEqual({
      verb: 'set',
      payload: { subject: 'sluice.v1.worker.*.load', delayMs: 200, jitterMs: 50, dropPercent: 12.5, duplicatePercent: 0 },
    });
    expect(request(['faults', 'clear'])).toEqual({ verb: 'clear', payload: {} });
    expect(request(['faults', 'clear'], { subject: 'sluice.v1.>' })).toEqual({ verb: 'clear', payload: { subject: 'sluice.v1.>' } });
  });
});

describe('sluice bus faults: usage errors name the option and what it allows', () => {
  it('exits 2 before connecting, naming each problem', async () => {
    const cases: [string[], RegExp][] = [
      [[], /missing verb: sluice bus faults/],
      [['fault'], /unknown verb "fault" \(allowed: faults\)/],
      [['faults', 'drop'], /unknown action "drop" \(allowed: get, set, clear\)/],
      [['faults', 'set', '--drop', '10'], /--subject is required for set/],
      [['faults', 'set', '--subject', 'a.b', '--drop', '150'], /--drop: must be <= 100/],
      [['faults', 'set', '--subject', 'a.b', '--duplicate=-1'], /--duplicate: must be >= 0/],
      [['faults', 'set', '--subject', 'a.b', '--delay-ms', '1.5'], /--delay-ms: must be a whole number of ms/],
      [['faults', 'set', '--subject', 'a.b', '--jitter-ms', 'soon'], /--jitter-ms: "soon" is not a number/],
      [['faults', 'set', '--subject', 'a.>.b'], /--subject: not a NATS subject pattern: ">" .* last token/],
      [['faults', 'clear', '--subject', 'a..b'], /--subject: not a NATS subject pattern: token 2 is empty/],
      [['faults', 'clear', '--subject', 'a', '--drop', '5'], /--drop is for set, not clear/],
      [['faults', '--subject', 'a'], /--subject is for set and clear, not get/],
      [['faults', '--bogus'], /unknown option --bogus/],
    ];
    for (const [argv, message] of cases) {
      const { code, stdout, stderr } = await bus(...argv);
      expect(code, argv.join(' ')).toBe(EXIT.USAGE);
      expect(stderr, argv.join(' ')).toMatch(message);
      expect(stderr).toContain('Run `sluice bus --help` for usage.');
      expect(stdout).toBe('');
    }
  });

  it('prints its usage for --help', async () => {
    const { code, stdout } = await bus('--help');
    expect(code).toBe(EXIT.OK);
    expect(stdout).toContain('Usage: sluice bus faults');
  });
});
