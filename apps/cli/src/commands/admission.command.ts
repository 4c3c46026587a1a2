import { parseCommandLine } from '@sluice/config';
import { AdmissionPolicyStateSchema, subjects, type AdmissionPolicyState } from '@sluice/contracts';
import { ADMISSION_POLICY_NAMES, chainNames, chainProblem } from '@sluice/policies';
import { ControlError, resultsOf, withControlBus } from './control-bus.js';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice admission get [--json]
       sluice admission set [POLICY] [PARAM=VALUE ...] [--json]

Shows or changes the admission chain of the running cluster, in every admission replica at
once. The change takes effect on the next request and shows in /metrics
(sluice_admission_policy_info, sluice_admission_policy_param).

  POLICY          one of: ${ADMISSION_POLICY_NAMES.join(', ')}; or a chain of them,
                  comma-separated, checked in that order (default: the active chain)
  PARAM=VALUE     a parameter, merged over the current ones: of the chain's only policy
                  (capacity=5000), or of any policy by its name (token-bucket.capacity=5000; needed
                  when the chain has several). Dotted names reach nested ones
                  (budgetsUs.critical=80000); values are numbers, true/false, null, JSON objects,
                  or text.

Examples:
  sluice admission set token-bucket capacity=5000 refillRate=500
  sluice admission set busy-threshold,token-bucket token-bucket.capacity=5000
  sluice admission set slo-predictive headroom=1.2 budgetsUs.standard=250000
  sluice admission set busy-threshold activeDecodeBlocksThreshold=0.85
  sluice admission set always-admit

Options:
  --json                          print the result as JSON
  --config FILE, --nats.url=URL   where the cluster's NATS is (also NATS_URL)
  -h, --help                      this text`;

/** `a.b=1` → {a: {b: 1}}, merged into `into`. */
function setParam(into: Record<string, unknown>, key: string, text: string): void {
  const path = key.split('.');
  let node = into;
  for (const part of path.slice(0, -1)) {
    const next = node[part];
    node = (node[part] = typeof next === 'object' && next !== null ? next : {}) as Record<string, unknown>;
  }
  node[path.at(-1)!] = parseValue(text);
}

function parseValue(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

export const admissionCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json'], maxPositionals: 64 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const [verb, ...rest] = parsed.positionals;
    const problems = [...parsed.problems];
    if (verb !== 'get' && verb !== 'set') problems.push(verb === undefined ? 'missing verb: get or set' : `unknown verb "${verb}" (allowed: get, set)`);
    if (verb === 'get' && rest.length > 0) problems.push(`get takes no arguments (got "${rest.join(' ')}")`);

    let policy: string | undefined;
    const params: Record<string, unknown> = {};
    for (const [i, arg] of rest.entries()) {
      const eq = arg.indexOf('=');
      if (eq === -1) {
        if (i === 0 && verb === 'set') policy = arg;
        else problems.push(`"${arg}" is not PARAM=VALUE`);
        continue;
      }
      if (eq === 0) problems.push(`"${arg}" has no parameter name`);
      else setParam(params, arg.slice(0, eq), arg.slice(eq + 1));
    }
    const chain = policy === undefined ? undefined : chainProblem(chainNames(policy));
    if (chain) problems.push(chain.message);
    if (problems.length > 0) {
      for (const p of problems) err.line(`sluice admission: ${p}`);
      err.line('Run `sluice admission --help` for usage.');
      return EXIT.USAGE;
    }

    try {
      const states = await withControlBus(parsed.configArgs, ctx, async (bus) => {
        const answers =
          verb === 'set'
            ? await bus.askAll(subjects.control('admission', 'set'), { ...(policy ? { policy } : {}), params })
            : await bus.askAll(subjects.control('admission', 'get'), {});
        return resultsOf(answers, 'admission service').map((r) => AdmissionPolicyStateSchema.parse(r));
      });
      const state = states[0]!;
      if (parsed.flags.has('json')) out.line(JSON.stringify(state, null, 2));
      else printState(ctx, state, states.length);
      if (states.some((s) => JSON.stringify(s) !== JSON.stringify(state))) {
        err.line(err.yellow('sluice admission: the admission replicas disagree; run `sluice admission set` to align them'));
      }
      return EXIT.OK;
    } catch (error) {
      if (!(error instanceof ControlError)) throw error;
      err.line(`sluice admission: ${error.message}`);
      return error.exitCode;
    }
  },
};

function printState({ stdout: out }: CliContext, state: AdmissionPolicyState, replicas: number): void {
  out.line(`${out.bold('policy')}  ${state.policy}  ${out.dim(`(${replicas} admission replica${replicas === 1 ? '' : 's'})`)}`);
  const entries = Object.entries(state.params);
  const width = Math.max(0, ...entries.map(([k]) => k.length)) + 2;
  for (const [key, value] of entries) out.line(`  ${key.padEnd(width)}${typeof value === 'string' ? value : JSON.stringify(value)}`);
}
