import { loadConfig, loadProfile } from '@sluice/config';
import { createFaultRegistry, type Fault, type WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { simulate } from '../twin.js';

/**
 * Every registered fault, each of its examples, through a real small twin (two worker processes of
 * two instances, the stage cores, the gateway's migration and deadline): a fault the twin models
 * fires and is undone at its virtual times, one it does not is reported and skipped, and either
 * way every request ends exactly once. libs/workload's fault conformance suite checks the rest of
 * each fault's contract against recorded ports.
 */

const registry = createFaultRegistry();
const config = loadConfig({ argv: ['--worker.processes=2', '--worker.instances=2', '--router.policy=round-robin'] });
const profile = loadProfile(config);

/** Sixteen streaming requests, one every 25 ms: all in flight when a fault 100 ms in hits. */
const REQUESTS: WorkloadRequest[] = Array.from({ length: 16 }, (_, index) => ({
  index,
  clientId: `c${index}`,
  fairnessId: 't0',
  sloClass: 'standard',
  arrivalMs: index * 25,
  inputTokens: Uint32Array.from({ length: 128 }, (_, i) => (index + 1) * 1_000_000 + i),
  maxTokens: 48,
}));

/** The example at 100 ms from the first request, undone (when it is) 400 ms later. */
const early = (fault: Fault): Fault => ({ ...fault, atMs: 100, ...('forMs' in fault && fault.forMs !== undefined ? { forMs: 400 } : {}) });

describe.each(registry.actions())('fault conformance in the twin: %s', (action) => {
  const definition = registry.get(action);

  it.each(definition.examples.map((e, i) => [i, early(definition.schema.parse(e) as Fault)] as const))('example %i: fires (or is reported as not modelled) and every request ends once', (_i, fault) => {
    const result = simulate(REQUESTS, { config, profile, checkInvariants: true, chaos: { faults: [fault] } });
    expect(result.records.map((r) => r.id)).toEqual(REQUESTS.map((_, i) => `r${i}`));
    for (const r of result.records) expect(r.outcome).toMatch(/^(completed|rejected|failed|dropped)$/);

    const report = result.chaos!.faults[0]!;
    const t0 = result.chaos!.t0Ms;
    expect(report).toMatchObject({ index: 0, action, fault, plannedStartMs: t0 + 100 });
    if (!report.modelled) {
      expect(result.chaos!.notModelled).toEqual([`not modelled in the twin: faults[0] ${report.detail}`]);
      expect(report.firedAtMs).toBeNull();
      return;
    }
    expect(report.firedAtMs).toBe(t0 + 100);
    expect(report.undoneAtMs).toBe(report.plannedEndMs === null ? null : t0 + 500);
    expect(report.detail).toMatch(/\S/);
  });

  it('is modelled for at least one of its examples, or by none with the reason', () => {
    const reports = definition.examples.map((e) => simulate(REQUESTS.slice(0, 2), { config, profile, chaos: { faults: [early(definition.schema.parse(e) as Fault)] } }).chaos!.faults[0]!);
    if ('notModelled' in definition.twin) expect(reports.every((r) => !r.modelled && r.detail.startsWith(action))).toBe(true);
    else expect(reports.some((r) => r.modelled)).toBe(true);
  });
});
