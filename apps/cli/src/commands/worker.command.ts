import { z } from 'zod';
import { parseCommandLine } from '@sluice/config';
import { InjectedFailureSchema, SetWorkerFaultsSchema, WorkerFaultsSchema, subjects, type WorkerFaults } from '@sluice/contracts';
import { ControlError, resultsOf, withControlBus } from './control-bus.js';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice worker faults [--instance ID] [knobs] [--json] [--config FILE] [--nats.url=URL]

Shows or changes the fault knobs of running worker instances (chaos runs). With no knob it
shows them; with knobs it sets them on one instance (--instance) or on every instance, and shows
the result. The change applies to the next step of each instance.

Knobs:
  --slowdown X               every modelled duration × X (1 = as modelled, 2 = half-speed GPU)
  --failure-rate P           probability in [0, 1] that an accepted request fails at once
  --failure-types A,B        which failures: ${InjectedFailureSchema.options.join(', ')}
  --hang / --no-hang         accept requests and never finish them (they end at the deadline)

Options:
  --instance ID              one instance (as listed by this command); default every instance
  --json                     print the knobs as JSON
  --config FILE, --nats.url=URL   where the cluster's NATS is (also NATS_URL)
  -h, --help                 this text`;

/** CLI option → the knob it sets, and how its text becomes the knob's value. */
const KNOBS = {
  slowdown: { key: 'slowdown', parse: Number },
  'failure-rate': { key: 'failureRate', parse: Number },
  'failure-types': { key: 'failureTypes', parse: (v: string) => v.split(',').map((t) => t.trim()) },
} as const;

type KnobOption = keyof typeof KNOBS;
const OPTION_OF_KEY: Record<string, string> = { ...Object.fromEntries(Object.entries(KNOBS).map(([o, k]) => [k.key, o])), hang: 'hang' };

export const workerCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json', 'hang', 'no-hang'], values: ['instance', ...Object.keys(KNOBS)], maxPositionals: 1 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const problems = [...parsed.problems];
    if (parsed.positionals[0] !== 'faults') problems.push(parsed.positionals[0] === undefined ? 'missing verb: sluice worker faults' : `unknown verb "${parsed.positionals[0]}" (allowed: faults)`);
    if (parsed.flags.has('hang') && parsed.flags.has('no-hang')) problems.push('--hang and --no-hang contradict each other');

    const faults: Record<string, unknown> = {};
    for (const [option, text] of parsed.values) {
      if (option in KNOBS) faults[KNOBS[option as KnobOption].key] = KNOBS[option as KnobOption].parse(text);
    }
    if (parsed.flags.has('hang')) faults.hang = true;
    if (parsed.flags.has('no-hang')) faults.hang = false;
    const instanceId = parsed.values.get('instance');
    const request = SetWorkerFaultsSchema.safeParse({ ...(instanceId ? { instanceId } : {}), faults });
    if (!request.success) {
      for (const issue of request.error.issues) {
        const key = String(issue.path[1] ?? issue.path[0] ?? '');
        problems.push(`--${OPTION_OF_KEY[key] ?? key}: ${issue.message}`);
      }
    }
    if (problems.length > 0 || !request.success) {
      for (const p of problems) err.line(`sluice worker: ${p}`);
      err.line('Run `sluice worker --help` for usage.');
      return EXIT.USAGE;
    }

    try {
      const changing = Object.keys(request.data.faults).length > 0;
      const byInstance = await withControlBus(parsed.configArgs, ctx, async (bus) => {
        const verb = changing ? 'set-faults' : 'get-faults';
        const payload = changing ? request.data : instanceId ? { instanceId } : {};
        const results = resultsOf(await bus.askAll(subjects.control('worker', verb), payload), instanceId ? `worker instance ${instanceId}` : 'worker', instanceId ? 'is the id right? `sluice worker faults` lists them' : undefined);
        return Object.assign({}, ...results.map((r) => z.record(z.string(), WorkerFaultsSchema).parse(r))) as Record<string, WorkerFaults>;
      });
      if (parsed.flags.has('json')) out.line(JSON.stringify(byInstance, null, 2));
      else printTable(ctx, byInstance);
      return EXIT.OK;
    } catch (error) {
      if (!(error instanceof ControlError)) throw error;
      err.line(`sluice worker: ${error.message}`);
      return error.exitCode;
    }
  },
};

function printTable({ stdout: out }: CliContext, byInstance: Record<string, WorkerFaults>): void {
  const ids = Object.keys(byInstance).sort();
  const width = Math.max('instance'.length, ...ids.map((id) => id.length)) + 2;
  out.line(out.bold(`${'instance'.padEnd(width)}${'slowdown'.padEnd(10)}${'failure-rate'.padEnd(14)}${'failure-types'.padEnd(32)}hang`));
  for (const id of ids) {
    const f = byInstance[id]!;
    out.line(`${id.padEnd(width)}${String(f.slowdown).padEnd(10)}${String(f.failureRate).padEnd(14)}${f.failureTypes.join(',').padEnd(32)}${f.hang ? 'yes' : 'no'}`);
  }
}
