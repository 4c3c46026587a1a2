import type { RunReport } from '@sluice/metrics';

/** One decision of the autoscaler, in the records' time base (ms since the run's start). */
export interface AutoscalerDecisionRow {
  readonly atMs: number;
  /** The metric's value it decided on. */
  readonly value: number;
  /** What the workers were asked to run before (the HPA's current replicas). */
  readonly current: number;
  /** Instances registered and not draining, as it counted them. */
  readonly ready: number;
  /** The HPA's recommendation from the metric alone; absent when read from the autoscaler's gauges. */
  readonly recommended?: number;
  /** What it set, after stabilization, rate limits and min/max. */
  readonly desired: number;
  /** Which rule decided: the HPA, or KEDA at the edges of zero; absent when read from the gauges. */
  readonly rule?: string;
}

/** An instance's lifecycle event as a reader on the bus hears it (heartbeats left out). */
export interface HeardInstanceEvent {
  readonly instanceId: string;
  readonly type: 'register' | 'drain' | 'deregister' | 'heartbeat';
  readonly atMs: number;
}

/** The pool's instances at one moment, as a reader of lifecycle events and decisions counts them; holds until the next point. */
export interface InstanceCountsPoint {
  readonly atMs: number;
  /** Registered and not draining: routable. */
  readonly ready: number;
  /** Asked for and not yet registered: loading their model (desired − ready, never below 0). */
  readonly starting: number;
  /** Announced their drain and not yet deregistered; absent when read from gauges that do not say. */
  readonly draining?: number;
  /** What the autoscaler last asked the workers to run. */
  readonly desired: number;
}

/** One scale-up, from the decision (and the demand behind it) to its instances routable. */
export interface ScaleUpReaction {
  readonly decidedAtMs: number;
  /** The first decision of the run of consecutive decisions whose recommendation was above the pool's size: when the metric first asked for more. */
  readonly demandAtMs: number;
  /** Instances it added. */
  readonly added: number;
  /** When the last of them registered (became routable); null if some never did (cancelled by a scale-down, or the run ended first). */
  readonly routableAtMs: number | null;
  /** routableAtMs − decidedAtMs: the control hop plus the modelled start-up. */
  readonly reactionMs: number | null;
  /** routableAtMs − demandAtMs: adds the stabilization window and the rate limits' wait. */
  readonly fromDemandMs: number | null;
}

/**
 * report.json's `autoscaler` (docs/autoscaling.md, "The run report"): the decisions, the pool's
 * size over time, and what the scaling cost and bought. Cost is instance-time: an instance costs
 * from its start (the model load holds its GPU) until it deregisters, ready, starting or
 * draining alike, as a node-hour is billed. Over the run's window (the summary's: the first
 * arrival to the last completion), so it pairs with the summary's goodput.
 */
export interface AutoscalerSection {
  readonly metric: string;
  /**
   * `events`: from every decision and the lifecycle events a reader heard (the twin; a live run on
   * the bus); `gauges`: from the autoscaler's /metrics sampled every `sampleEveryMs` (times and
   * reaction times to that grain, draining instances not counted).
   */
  readonly source: 'events' | 'gauges';
  readonly sampleEveryMs?: number;
  readonly decisions: readonly AutoscalerDecisionRow[];
  readonly instances: readonly InstanceCountsPoint[];
  readonly scaleUps: readonly ScaleUpReaction[];
  /** ∫ (ready + starting + draining) dt over the run's window, in s. */
  readonly instanceSeconds: number;
  readonly instanceHours: number;
  /** Requests completed within every target they had (the summary's goodput.good) per instance-hour; null with no instance-time. */
  readonly goodPerInstanceHour: number | null;
  /** Output tokens of completed requests per instance-hour; null with no instance-time. */
  readonly outputTokensPerInstanceHour: number | null;
}

/** What the section is built from: what the autoscaler decided and what the instances announced, from the twin or the bus. */
export interface AutoscalerTimelineInput {
  readonly metric: string;
  /** The instances the cluster started with (worker.processes × worker.initialInstances), registered at the run's start. */
  readonly initialInstances: number;
  readonly decisions: readonly AutoscalerDecisionRow[];
  /** In the order heard. */
  readonly lifecycle: readonly HeardInstanceEvent[];
}

/** The section from a run's autoscaler timeline and its summary (whose window and goodput it divides by instance-time). */
export function autoscalerSection(input: AutoscalerTimelineInput, summary: RunReport): AutoscalerSection {
  const instances = instanceCounts(input);
  return { metric: input.metric, source: 'events', decisions: input.decisions, instances, scaleUps: scaleUpReactions(input), ...costOf(instances, summary) };
}

/** Instance-time over the run's window, and what the run's good requests and output tokens were per instance-hour of it. */
export function costOf(instances: readonly InstanceCountsPoint[], summary: RunReport): Pick<AutoscalerSection, 'instanceSeconds' | 'instanceHours' | 'goodPerInstanceHour' | 'outputTokensPerInstanceHour'> {
  const { startMs, endMs, durationMs } = summary.window;
  const instanceSeconds = instanceMs(instances, startMs, endMs) / 1000;
  const instanceHours = instanceSeconds / 3600;
  const outputTokens = (summary.overall.throughput.outputTokensPerSec * durationMs) / 1000;
  const per = (amount: number): number | null => (instanceHours > 0 ? amount / instanceHours : null);
  return { instanceSeconds, instanceHours, goodPerInstanceHour: per(summary.goodput.good), outputTokensPerInstanceHour: per(outputTokens) };
}

/**
 * The pool over time: a point at each event that changed a count. Events at the same time are
 * folded into one point (the last state at that time). Register and heartbeat make an instance
 * ready (a reader that missed the register counts it from its next beat); drain makes it draining;
 * deregister forgets it.
 */
export function instanceCounts(input: AutoscalerTimelineInput): InstanceCountsPoint[] {
  type Change = { atMs: number; apply: () => void };
  const state = new Map<string, 'ready' | 'draining'>();
  let desired = input.initialInstances;
  const changes: Change[] = [];
  for (const event of input.lifecycle) {
    changes.push({
      atMs: event.atMs,
      apply: () => {
        if (event.type === 'deregister') state.delete(event.instanceId);
        else if (event.type === 'drain') state.set(event.instanceId, 'draining');
        else if (state.get(event.instanceId) !== 'draining') state.set(event.instanceId, 'ready');
      },
    });
  }
  for (const decision of input.decisions) changes.push({ atMs: decision.atMs, apply: () => (desired = decision.desired) });
  // Stable: at equal times, lifecycle events (heard first) before the decision made on them.
  changes.sort((a, b) => a.atMs - b.atMs);
  const points: InstanceCountsPoint[] = [];
  for (let i = 0; i < changes.length; i++) {
    changes[i]!.apply();
    if (i + 1 < changes.length && changes[i + 1]!.atMs === changes[i]!.atMs) continue;
    let ready = 0;
    let draining = 0;
    for (const s of state.values()) if (s === 'ready') ready++;
    else draining++;
    const point = { atMs: changes[i]!.atMs, ready, starting: Math.max(0, desired - ready), draining, desired };
    const last = points.at(-1);
    if (last && last.ready === point.ready && last.starting === point.starting && last.draining === point.draining && last.desired === point.desired) continue;
    points.push(point);
  }
  return points;
}

/** ∫ (ready + starting + draining) over [fromMs, toMs] of a step series, in instance-ms. */
export function instanceMs(points: readonly InstanceCountsPoint[], fromMs: number, toMs: number): number {
  let total = 0;
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    const start = Math.max(p.atMs, fromMs);
    const end = Math.min(points[i + 1]?.atMs ?? Number.POSITIVE_INFINITY, toMs);
    if (end > start) total += (p.ready + p.starting + (p.draining ?? 0)) * (end - start);
  }
  return total;
}

/**
 * Each scale-up and when its instances became routable. An instance joins when it registers
 * while not in the cluster (the first `initialInstances` registers are the cluster's start);
 * joins are matched to scale-ups first come, first served. A later decision below the pool's size
 * cancels the newest instances still starting first (the worker parks a starting instance before
 * it drains a ready one), so those never register.
 */
export function scaleUpReactions(input: AutoscalerTimelineInput): ScaleUpReaction[] {
  const joins = joinTimes(input);
  const ups: { decidedAtMs: number; demandAtMs: number; added: number; waiting: number; routableAtMs: number | null }[] = [];
  let demandAtMs: number | undefined;
  let next = 0;
  const { decisions } = input;
  for (let d = 0; d < decisions.length; d++) {
    const decision = decisions[d]!;
    if ((decision.recommended ?? decision.desired) > decision.current) demandAtMs ??= decision.atMs;
    else demandAtMs = undefined;
    const change = decision.desired - decision.current;
    if (change > 0) ups.push({ decidedAtMs: decision.atMs, demandAtMs: demandAtMs ?? decision.atMs, added: change, waiting: change, routableAtMs: null });
    for (let i = ups.length - 1, cancel = -change; i >= 0 && cancel > 0; i--) {
      const take = Math.min(ups[i]!.waiting, cancel);
      ups[i]!.waiting -= take;
      cancel -= take;
    }
    // Joins before the next decision belong to the scale-ups made so far.
    const untilMs = decisions[d + 1]?.atMs ?? Number.POSITIVE_INFINITY;
    for (; next < joins.length && joins[next]! < untilMs; next++) {
      const up = ups.find((u) => u.waiting > 0);
      if (!up) continue;
      up.waiting--;
      up.routableAtMs = joins[next]!;
    }
  }
  return ups.map(({ decidedAtMs, demandAtMs: demand, added, waiting, routableAtMs }) => {
    const routable = waiting === 0 ? routableAtMs : null;
    return { decidedAtMs, demandAtMs: demand, added, routableAtMs: routable, reactionMs: routable === null ? null : routable - decidedAtMs, fromDemandMs: routable === null ? null : routable - demand };
  });
}

/** When instances joined the cluster after its start, in order. */
function joinTimes(input: AutoscalerTimelineInput): number[] {
  const inCluster = new Set<string>();
  let initial = input.initialInstances;
  const joins: number[] = [];
  for (const event of input.lifecycle) {
    if (event.type === 'deregister') inCluster.delete(event.instanceId);
    if (event.type !== 'register' || inCluster.has(event.instanceId)) continue;
    inCluster.add(event.instanceId);
    if (initial > 0) initial--;
    else joins.push(event.atMs);
  }
  return joins;
}
