import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Subscription } from '@nats-io/transport-node';
import { Bus } from '@sluice/bus';
import { micros, SetWorkerInstancesSchema, subjects, type SetWorkerInstances } from '@sluice/contracts';
import { startNats, type NatsServerHandle } from '@sluice/launcher';
import { Registry, trace } from '@sluice/telemetry';
import { eventually } from '@sluice/testing';
import { AutoscalerOnBus } from './autoscaler-on-bus.js';
import { createAutoscalerMetrics } from './autoscaler.metrics.js';

/**
 * The autoscaler's effects on a real nats-server: a size goes to the worker named, is asked again
 * while nobody answers (and not once refused, nor once a newer size went out), and each decision
 * becomes its metrics and, when it changes the size, a log line.
 */
let nats: NatsServerHandle;
let autoscaler: Bus;
let workers: Bus;
const subscriptions: Subscription[] = [];
/** Without any worker on the bus an ask fails at once (no responders): the pauses pace the attempts (0, 0.3, 0.6, 0.9, 1.2 s). */
const RETRY = { attempts: 5, timeoutMs: 200, pauseMs: 300 };

beforeAll(async () => {
  nats = await startNats();
  autoscaler = await Bus.connect({ url: nats.url, name: 'autoscaler', ackTimeoutMs: 1_000 });
  workers = await Bus.connect({ url: nats.url, name: 'workers', ackTimeoutMs: 1_000 });
});

afterEach(() => {
  for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
});

afterAll(async () => {
  await Promise.all([autoscaler?.drain(), workers?.drain()]);
  await nats?.stop();
});

function recorder() {
  const lines: string[] = [];
  const warnings: string[] = [];
  return { lines, warnings, logger: { log: (line: unknown) => void lines.push(String(line)), warn: (line: unknown) => void warnings.push(String(line)) } };
}

function effects(log: ReturnType<typeof recorder>, registry = new Registry()): AutoscalerOnBus {
  const metrics = createAutoscalerMetrics(registry, { sizes: () => ({ ready: 1, requested: 3 }) });
  return new AutoscalerOnBus(autoscaler, trace.getTracer('spec'), metrics, log.logger, { target: { kind: 'averageValue', value: 2 } }, RETRY);
}

/** A worker process on the bus: answers set-instances when named (with `answer`), as apps/worker does. */
async function worker(id: string, answer: (size: SetWorkerInstances) => unknown = (size) => ({ workerId: id, active: size.instances, starting: 1, ready: size.instances - 1, draining: 0 })): Promise<SetWorkerInstances[]> {
  const heard: SetWorkerInstances[] = [];
  subscriptions.push(
    workers.answer(subjects.control('worker', 'set-instances'), SetWorkerInstancesSchema, (size) => {
      if (size.workerId !== id) return undefined;
      heard.push(size);
      return answer(size);
    }),
  );
  await workers.flush();
  return heard;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the autoscaler on the bus', () => {
  it('sends a size to the worker named, whichever other workers hear it, and logs its answer', async () => {
    const log = recorder();
    const other = await worker('worker-b');
    const named = await worker('worker-a');
    effects(log).setActive('worker-a', 3, micros(0));
    await eventually(() => log.lines.length > 0, 2_000, 'the answer logged');
    expect(log.lines).toEqual(['worker worker-a runs 3: 1 starting, 2 ready, 0 draining']);
    expect(named).toEqual([{ workerId: 'worker-a', instances: 3 }]);
    expect(other).toEqual([]);
  });

  it('asks again while no worker answers, until one does', async () => {
    const log = recorder();
    effects(log).setActive('worker-c', 2, micros(0));
    await pause(RETRY.pauseMs + 50); // at least one ask went unanswered, three are left
    const heard = await worker('worker-c');
    await eventually(() => log.lines.length > 0, 3_000, 'the answer logged');
    expect(heard).toEqual([{ workerId: 'worker-c', instances: 2 }]);
    expect(log.warnings).toEqual([]);
  });

  it('gives up after its attempts, saying so', async () => {
    const log = recorder();
    effects(log).setActive('worker-gone', 2, micros(0));
    await eventually(() => log.warnings.length > 0, 5_000, 'the warning');
    expect(log.warnings[0]).toMatch(/^worker worker-gone did not take 2 instances \(5 attempts\)/);
  });

  it('does not ask again what a worker refused', async () => {
    const log = recorder();
    const heard = await worker('worker-d', () => {
      throw new Error('7 is more than the 4 instances worker worker-d hosts (worker.instances)');
    });
    effects(log).setActive('worker-d', 7, micros(0));
    await eventually(() => log.warnings.length > 0, 2_000, 'the refusal logged');
    await pause(3 * (RETRY.timeoutMs + RETRY.pauseMs));
    expect(heard).toHaveLength(1);
    expect(log.warnings).toEqual(['worker worker-d did not take 7 instances (1 attempt): 7 is more than the 4 instances worker worker-d hosts (worker.instances)']);
  });

  it('lets a newer size for the same worker replace one still being asked', async () => {
    const log = recorder();
    const scaler = effects(log);
    scaler.setActive('worker-e', 2, micros(0));
    scaler.setActive('worker-e', 3, micros(0));
    await pause(RETRY.pauseMs + 50);
    const heard = await worker('worker-e');
    await eventually(() => log.lines.length > 0, 3_000, 'the answer logged');
    await pause(2 * (RETRY.timeoutMs + RETRY.pauseMs));
    expect(heard).toEqual([{ workerId: 'worker-e', instances: 3 }]);
  });

  it('turns each decision into its metrics, and a change of size into a log line', async () => {
    const log = recorder();
    const registry = new Registry();
    const scaler = effects(log, registry);
    // Before any decision: what the workers run (the readings say 3 asked for).
    expect(await registry.metrics()).toContain('sluice_autoscaler_desired_instances 3');
    const decision = { atUs: micros(1_000_000), metric: 'queueDepth', value: 37, current: 1, ready: 1, recommended: 19, stabilized: 19, desired: 4, rule: 'hpa' } as const;
    scaler.decided(decision);
    scaler.decided({ ...decision, current: 4, value: 8, recommended: 4, stabilized: 4 });
    const page = await registry.metrics();
    expect(page).toContain('sluice_autoscaler_desired_instances 4');
    expect(page).toContain('sluice_autoscaler_recommended_instances 4');
    expect(page).toContain('sluice_autoscaler_metric_value{metric="queueDepth"} 8');
    expect(page).toContain('sluice_autoscaler_decisions_total{direction="up"} 1');
    expect(page).toContain('sluice_autoscaler_decisions_total{direction="none"} 1');
    expect(page).toContain('sluice_autoscaler_decisions_total{direction="up"} 1');
    expect(page).toContain('sluice_autoscaler_decisions_total{direction="down"} 0');
    expect(page).toContain('sluice_autoscaler_ready_instances 1');
    expect(page).toContain('sluice_autoscaler_starting_instances 2');
    expect(log.lines).toEqual(['scale up 1 → 4 (queueDepth 37, target 2 per instance; recommended 19, stabilized 19, rule hpa; 1 ready)']);
  });
});
