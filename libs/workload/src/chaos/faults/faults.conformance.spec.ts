import { describe, expect, it } from 'vitest';
import { ChaosScenarioError, FaultSchema, parseChaosScenario } from '../scenario.js';
import { createFaultRegistry } from './built-in-faults.js';
import type { FaultDefinition } from './fault-definition.js';
import { liveRun, twinPlan, whyUnsupported } from './fault-runs.js';
import type { LiveTarget } from './live-ports.js';
import { PortRecorder } from './testing/recording-ports.js';

/**
 * The contract every registered fault keeps, run over the registry: its schema (and the scenario's
 * union) takes its examples and names the key of a bad one; its report line names what it hits;
 * `forMs` and an undo go together; on each kind of live target it either does something through
 * the target's port or says why it cannot; in the twin it plans a run or says why it is not
 * modelled. What each fault does is in its own spec; the twin runs each modelled fault for real
 * in libs/twin (src/chaos/twin-faults.conformance.spec.ts).
 */

const registry = createFaultRegistry();

/** Where a fault of a scenario goes wrong, as `sluice chaos` words it: `faults[0].target: …`. */
function problems(fault: object): string[] {
  try {
    parseChaosScenario(JSON.stringify({ name: 'conformance', workload: 'w.yaml', faults: [fault] }));
    return [];
  } catch (error) {
    if (!(error instanceof ChaosScenarioError)) throw error;
    return error.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

/** The fields a fault has beyond those every fault has. */
const ownKeys = (definition: FaultDefinition) => Object.keys(definition.schema.shape).filter((k) => !['action', 'atMs', 'note'].includes(k));

/** Every kind of live target a fault may meet: a local cluster on each kind of NATS, compose on one server and on a cluster. */
const TARGETS: readonly [string, (r: PortRecorder) => LiveTarget][] = [
  ['local, one NATS server', (r) => r.local('server')],
  ['local, a NATS cluster', (r) => r.local('cluster')],
  ['local, external NATS', (r) => r.local('external')],
  ['compose, one NATS server', (r) => r.compose(1)],
  ['compose, a NATS cluster', (r) => r.compose(3)],
];

describe.each(registry.actions())('fault conformance: %s', (action) => {
  const definition = registry.get(action);
  const examples = definition.examples.map((e) => definition.schema.parse(e));
  const hasForMs = 'forMs' in definition.schema.shape;
  const undoExpected = hasForMs && definition.endsWithItsStart !== true;

  it('is registered under the action word its schema takes', () => {
    expect(definition.action).toBe(action);
    for (const example of examples) expect(example.action).toBe(action);
  });

  it("takes its examples, alike in the scenario's union, and they name every field of its own", () => {
    for (const example of definition.examples) {
      expect(problems(example)).toEqual([]);
      expect(FaultSchema.parse(example)).toEqual(definition.schema.parse(example));
    }
    const named = new Set(definition.examples.flatMap((e) => Object.keys(e)));
    expect(ownKeys(definition).filter((k) => !named.has(k))).toEqual([]);
  });

  it('refuses a wrong value in each field, a missing required one and an unknown one, naming the key', () => {
    for (const key of ['atMs', ...ownKeys(definition)]) {
      const example = definition.examples.find((e) => key in e) ?? definition.examples[0];
      expect(problems({ ...example, [key]: { not: 'this' } }).some((p) => p.startsWith(`faults[0].${key}: `))).toBe(true);
      if (!definition.schema.shape[key]!.safeParse(undefined).success) {
        const { [key]: _dropped, ...rest } = example as Record<string, unknown>;
        expect(problems(rest)).toContain(`faults[0].${key}: is required`);
      }
    }
    expect(problems({ ...definition.examples[0], bogus: 1 })).toEqual(['faults[0].bogus: unknown key']);
  });

  it('names what it hits in its report line', () => {
    for (const example of examples) expect(definition.target(example)).toMatch(/\S/);
  });

  it(`is undone by an undo of its own ${undoExpected ? 'after forMs' : hasForMs ? 'never: its start ends it after forMs' : 'never: it has no forMs'}`, async () => {
    if (definition.endsWithItsStart === true) expect(definition.schema.shape.forMs?.safeParse(undefined).success).toBe(false);
    const r = new PortRecorder();
    for (const example of examples) {
      for (const [, target] of TARGETS) {
        if ((await whyUnsupported(definition, example, target(r))) !== undefined) continue;
        expect(liveRun(definition, example, target(r), r.controls()).undo !== undefined).toBe(undoExpected);
      }
      const plan = twinPlan(definition, example, r.twin());
      if (plan.notModelled === undefined) expect(plan.run.undo !== undefined).toBe(undoExpected);
    }
  });

  it.each(TARGETS)('on a target (%s): acts through its port, or says why it cannot before the run', async (_kind, target) => {
    for (const example of examples) {
      const r = new PortRecorder();
      const why = await whyUnsupported(definition, example, target(r));
      const run = liveRun(definition, example, target(r), r.controls());
      const action = target(r).kind === 'local' ? definition.local : definition.compose;
      if ('unsupported' in action) {
        expect(why).toBe(action.unsupported);
        await expect(run.start()).rejects.toThrow(action.unsupported);
        continue;
      }
      if (why !== undefined) {
        expect(why).toMatch(/\S/);
        continue;
      }
      expect(await run.start()).toMatch(/\S/);
      const started = r.calls.length;
      expect(started).toBeGreaterThan(0);
      if (run.undo) {
        expect(await run.undo()).toMatch(/\S/);
        expect(r.calls.length).toBeGreaterThan(started);
      }
    }
  });

  it('can be done on some live target, or says on every kind why not', async () => {
    const reasons = await Promise.all(TARGETS.map(([, target]) => whyUnsupported(definition, examples[0]!, target(new PortRecorder()))));
    expect(reasons.some((why) => why === undefined)).toBe(true);
    for (const kind of ['local', 'compose'] as const) {
      const action = definition[kind];
      if ('unsupported' in action) expect(action.unsupported).toMatch(/\S/);
    }
  });

  it('in the twin: runs through the twin port, or says why it is not modelled, starting with its action word', () => {
    for (const example of examples) {
      const r = new PortRecorder();
      const plan = twinPlan(definition, example, r.twin());
      expect(plan.target).toMatch(/\S/);
      if (plan.notModelled !== undefined) {
        expect(plan.notModelled.startsWith(`${action}`)).toBe(true);
        continue;
      }
      expect(plan.run.start()).toMatch(/\S/);
      expect(r.calls.length).toBeGreaterThan(0);
      if (plan.run.undo) expect(plan.run.undo()).toMatch(/\S/);
    }
  });
});

describe('the fault registry', () => {
  it('is an instance: a fault registered in one is in no other', () => {
    const own = createFaultRegistry();
    expect(() => own.register(own.get('kill'))).toThrow('fault "kill" is registered twice');
    expect(() => own.get('flood')).toThrow('unknown fault "flood"; allowed: kill, terminate, pause, disconnect, restart-nats, stop-nats-node, worker-faults, bus-faults');
    own.register({ ...own.get('kill'), action: 'flood' });
    expect(own.actions()).toContain('flood');
    expect(createFaultRegistry().actions()).not.toContain('flood');
  });

  it("is what the scenario's union is made of: an action it does not list is refused, naming those it does", () => {
    expect(problems({ atMs: 0, action: 'flood' })).toEqual([`faults[0].action: must be one of ${registry.actions().join(' | ')}`]);
  });
});
