import { loadConfig, loadProfile } from '@sluice/config';
import { DecisionTraceLineSchema, type DecisionTraceLine } from '@sluice/contracts';
import { generateWorkloadRequests, type WorkloadSpec } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { decisionTraceObserver } from './decision-trace-observer.js';
import { simulate } from './twin.js';

/**
 * The twin's decision trace (docs/twin.md, "Decision trace"): one line per routing decision, in
 * decision order, naming the request as its record does, with the choice the record shows and
 * the regret its own candidates give; and hearing it changes nothing in the run.
 */
const spec = (requests: number): WorkloadSpec => ({
  version: '2',
  seed: 3,
  aggregate_rate: 400,
  num_requests: requests,
  clients: [
    {
      id: 'chat',
      tenant_id: 'acme',
      slo_class: 'standard',
      rate_fraction: 1,
      arrival: { process: 'poisson' },
      prefix_group: 'system',
      prefix_length: 256,
      input_distribution: { type: 'gaussian', params: { mean: 256, std_dev: 64, min: 16, max: 512 } },
      output_distribution: { type: 'gaussian', params: { mean: 32, std_dev: 8, min: 4, max: 64 } },
    },
  ],
});

function traced(requests: number, argv: readonly string[]) {
  const config = loadConfig({ argv: ['--worker.instances=4', ...argv] });
  const workload = generateWorkloadRequests(spec(requests));
  const lines: DecisionTraceLine[] = [];
  const options = { config, profile: loadProfile(config), checkInvariants: true };
  const withTrace = simulate(workload, { ...options, observer: decisionTraceObserver(config.router.counterfactualK, (line) => lines.push(line)) });
  const without = simulate(workload, options);
  return { lines, withTrace, without, k: config.router.counterfactualK };
}

describe('the twin\'s decision trace', () => {
  it.each([
    ['least-loaded', ['--router.policy=least-loaded']],
    ['weighted', ['--router.policy=weighted', '--router.counterfactualK=4']],
    ['round-robin', ['--router.policy=round-robin', '--router.counterfactualK=4']],
  ] as const)('%s: one valid line per decision, in time order, choosing what each record shows, with the regret of its candidates', (_name, argv) => {
    const { lines, withTrace, without, k } = traced(300, argv);
    // Hearing the decisions changes no rule: the same records, event for event.
    expect(withTrace.events).toBe(without.events);
    expect(withTrace.records).toEqual(without.records);

    // Light enough that every request is routed once: one line each.
    const served = withTrace.records.filter((r) => r.outcome === 'completed');
    expect(served).toHaveLength(300);
    expect(lines).toHaveLength(300);
    for (let i = 1; i < lines.length; i++) expect(lines[i]!.atUs).toBeGreaterThanOrEqual(lines[i - 1]!.atUs);
    const byRequest = new Map(lines.map((l) => [l.requestId, l]));
    for (const record of served) {
      const line = byRequest.get(record.id)!;
      expect(DecisionTraceLineSchema.safeParse(line).success).toBe(true);
      expect(line.instance, record.id).toBe(record.instance);
      expect(line.top.length).toBe(Math.min(k, line.candidates));
      // With every candidate listed, the regret is the best score minus the chosen one's.
      if (line.top.length === line.candidates) {
        const chosen = line.top.find((c) => c.instanceId === line.instance)!;
        expect(line.regret).toBeCloseTo(line.top[0]!.score! - chosen.score!, 12);
      }
    }
    // Round-robin ignores load: under this load it must pick a worse-ranked instance sometimes, and the trace shows it.
    if (argv[0] === '--router.policy=round-robin') expect(lines.some((l) => l.regret! > 0)).toBe(true);
  });

  it('a disaggregated decision carries its prefill pick', () => {
    const { lines, withTrace } = traced(60, ['--worker.roles.prefill=1', '--worker.roles.decode=3', '--router.disaggregation.decider=always', '--router.policy=least-loaded']);
    expect(lines).toHaveLength(60);
    const remote = lines.filter((l) => l.pd?.placement === 'remote');
    expect(remote.length).toBeGreaterThan(0);
    // The one prefill instance prefills, and never decodes.
    expect(new Set(remote.map((l) => l.pd!.prefillInstance)).size).toBe(1);
    for (const line of lines) expect(line.instance).not.toBe(remote[0]!.pd!.prefillInstance);
    expect(withTrace.records.filter((r) => r.outcome === 'completed')).toHaveLength(60);
  });
});
