import { parseCommandLine } from '@sluice/config';
import { BusFaultRuleSchema, BusFaultsStateSchema, SubjectPatternSchema, subjects, type BusFaultsState } from '@sluice/contracts';
import { ControlError, resultsOf, withControlBus } from './control-bus.js';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice bus faults [get] [--json]
       sluice bus faults set --subject PATTERN [--delay-ms N] [--jitter-ms N] [--drop PCT] [--duplicate PCT] [--json]
       sluice bus faults clear [--subject PATTERN] [--json]

Shows or changes the bus fault rules of every running process (chaos runs), as Envoy's fault
filter: what a process sends on a subject the pattern matches is delayed, dropped or duplicated.
Every process answers with its rules and how many messages it has faulted. Control subjects
(sluice.v1.control.>) are never faulted, so rules can always be cleared.

  get      every process's rules (the default)
  set      add the rule for PATTERN, or replace the one with exactly that pattern
  clear    remove the rule with exactly PATTERN, or every rule without --subject

PATTERN is a NATS subject pattern: '*' one token, '>' the rest (quote it in the shell), e.g.
'sluice.v1.worker.*.load', 'sluice.v1.inbox.>', 'sluice.v1.router.submit'. When several rules
match a subject, the most specific applies (token by token from the left: a word beats '*',
'*' beats '>'); a rule with no knob exempts its subjects from a broader one.

Knobs (set):
  --delay-ms N        hold every matching message N ms before it is sent (default 0)
  --jitter-ms N       plus a uniform extra delay in [0, N] ms (default 0)
  --drop PCT          drop PCT % of matching messages (0..100; a dropped handoff times out)
  --duplicate PCT     send PCT % of them twice (0..100)

Options:
  --subject PATTERN               the rule's subject pattern
  --json                          print every process's rules as JSON
  --config FILE, --nats.url=URL   where the cluster's NATS is (also NATS_URL)
  -h, --help                      this text

Examples:
  sluice bus faults set --subject 'sluice.v1.worker.*.load' --delay-ms 200 --jitter-ms 100
  sluice bus faults set --subject sluice.v1.router.submit --drop 20
  sluice bus faults clear`;

/** CLI option → the rule field it sets (every knob is a number). */
const KNOBS = { 'delay-ms': 'delayMs', 'jitter-ms': 'jitterMs', drop: 'dropPercent', duplicate: 'duplicatePercent' } as const;
type KnobOption = keyof typeof KNOBS;
const OPTION_OF_FIELD: Record<string, string> = { subject: 'subject', ...Object.fromEntries(Object.entries(KNOBS).map(([o, f]) => [f, o])) };
const VERBS = ['get', 'set', 'clear'] as const;
type Verb = (typeof VERBS)[number];

type Request = { readonly verb: Verb; readonly payload: Record<string, unknown> };

/** The verb and its payload, or the usage problems, each naming the option or argument. */
export function parseBusFaultsRequest(positionals: readonly string[], values: ReadonlyMap<string, string>): Request | { problems: string[] } {
  const problems: string[] = [];
  const [noun, verbText = 'get'] = positionals;
  if (noun !== 'faults') problems.push(noun === undefined ? 'missing verb: sluice bus faults' : `unknown verb "${noun}" (allowed: faults)`);
  if (!(VERBS as readonly string[]).includes(verbText)) problems.push(`unknown action "${verbText}" (allowed: ${VERBS.join(', ')})`);
  const verb = verbText as Verb;
  const subject = values.get('subject');
  const knobs = [...values.keys()].filter((o): o is KnobOption => o in KNOBS);

  if (verb === 'get' && subject !== undefined) problems.push('--subject is for set and clear, not get');
  if (verb !== 'set') for (const o of knobs) problems.push(`--${o} is for set, not ${verb}`);
  if (verb === 'set' && subject === undefined) problems.push("--subject is required for set: the subject pattern of the rule, e.g. --subject 'sluice.v1.worker.*.load'");
  if (problems.length > 0) return { problems };

  if (verb === 'get') return { verb, payload: {} };
  if (verb === 'clear') {
    if (subject === undefined) return { verb, payload: {} };
    const pattern = SubjectPatternSchema.safeParse(subject);
    return pattern.success ? { verb, payload: { subject } } : { problems: pattern.error.issues.map((i) => `--subject: ${i.message}`) };
  }

  const rule: Record<string, unknown> = { subject };
  for (const o of knobs) {
    const text = values.get(o)!;
    const n = text.trim() === '' ? Number.NaN : Number(text);
    if (Number.isFinite(n)) rule[KNOBS[o]] = n;
    else problems.push(`--${o}: "${text}" is not a number`);
  }
  const parsed = BusFaultRuleSchema.safeParse(rule);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? '');
      problems.push(`--${OPTION_OF_FIELD[field] ?? field}: ${issue.message}`);
    }
  }
  return problems.length > 0 || !parsed.success ? { problems } : { verb, payload: parsed.data };
}

export const busCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json'], values: ['subject', ...Object.keys(KNOBS)], maxPositionals: 2 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const request = parseBusFaultsRequest(parsed.positionals, parsed.values);
    const problems = [...parsed.problems, ...('problems' in request ? request.problems : [])];
    if (problems.length > 0 || 'problems' in request) {
      for (const p of problems) err.line(`sluice bus: ${p}`);
      err.line('Run `sluice bus --help` for usage.');
      return EXIT.USAGE;
    }

    try {
      const states = await withControlBus(parsed.configArgs, ctx, async (bus) => {
        const answers = await bus.askAll(subjects.busFaults(request.verb), request.payload);
        return resultsOf(answers, 'process', 'is the cluster up?').map((r) => BusFaultsStateSchema.parse(r));
      });
      states.sort((a, b) => a.process.localeCompare(b.process));
      if (parsed.flags.has('json')) out.line(JSON.stringify(states, null, 2));
      else printTable(ctx, states);
      return EXIT.OK;
    } catch (error) {
      if (!(error instanceof ControlError)) throw error;
      err.line(`sluice bus: ${error.message}`);
      return error.exitCode;
    }
  },
};

/** One row per rule (a process without rules gets one row with "-"), then what was applied in all. */
function printTable({ stdout: out }: CliContext, states: readonly BusFaultsState[]): void {
  const rows = states.flatMap((s) =>
    s.rules.length === 0
      ? [[s.process, '-', '', '', '', '']]
      : s.rules.map((r) => [s.process, r.subject, String(r.delayMs), String(r.jitterMs), String(r.dropPercent), String(r.duplicatePercent)]),
  );
  const header = ['process', 'subject', 'delay-ms', 'jitter-ms', 'drop%', 'duplicate%'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)) + 2);
  const format = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('').trimEnd();
  out.line(out.bold(format(header)));
  for (const row of rows) out.line(format(row));
  const total = (k: keyof BusFaultsState['applied']) => states.reduce((sum, s) => sum + s.applied[k], 0);
  out.line(out.dim(`applied so far (${states.length} process${states.length === 1 ? '' : 'es'}): delayed ${total('delayed')}, dropped ${total('dropped')}, duplicated ${total('duplicated')}`));
}
