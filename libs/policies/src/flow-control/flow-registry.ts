import type { Micros } from '@sluice/contracts';
import { flowKeyId, type FlowKey } from './flow-key.js';

export interface FlowRegistrySettings {
  /** Flows tracked at once (0 = no limit). */
  readonly maxFlows: number;
  /** A flow with nothing queued for this long is forgotten. */
  readonly gcTimeoutUs: Micros;
}

/** Whether a request's flow may be tracked, and which idle flow made room for it. */
export type FlowAdmission =
  | { readonly ok: true; readonly recycled: FlowKey | undefined }
  | { readonly ok: false; readonly maxFlows: number; readonly message: string };

interface Registered {
  readonly key: FlowKey;
  /** Requests of this flow in a queue now. */
  queued: number;
  /** When it last had work or an arrival (meaningful while `queued` is 0). */
  idleSinceUs: Micros;
}

/**
 * Which flows flow control knows (docs/behaviour.md §3, "Flows and priorities"): a flow is
 * registered when its first request arrives and garbage-collected once it has had nothing queued
 * for `gcTimeoutUs`, as the Endpoint Picker's flow registry does, so tenants that come and go leave
 * nothing behind (per-flow metric series go with their flow). At most `maxFlows` are tracked: a
 * new flow past the cap takes the place of the one idle longest, and is refused only when every
 * tracked flow has queued requests, so a burst of one-off tenants cannot grow the state and cannot
 * lock out a new tenant while old ones sit idle. Pure: every time is passed in.
 */
export class FlowRegistry {
  private readonly flows = new Map<string, Registered>();
  /**
   * Flows with nothing queued, in the order they went idle (a Map keeps insertion order; a flow
   * that is touched again moves to the end), so the ones to collect are always at the head.
   */
  private readonly idle = new Map<string, Registered>();
  /** Tracked flows per priority: an unlisted band may go once no flow of its priority is left. */
  private readonly perPriority = new Map<number, number>();

  constructor(private readonly settings: FlowRegistrySettings) {}

  get size(): number {
    return this.flows.size;
  }

  /** Tracked flows with nothing queued. */
  get idleCount(): number {
    return this.idle.size;
  }

  has(key: FlowKey): boolean {
    return this.flows.has(flowKeyId(key));
  }

  /** Whether any tracked flow has this priority. */
  hasPriority(priority: number): boolean {
    return this.perPriority.has(priority);
  }

  /**
   * A request of this flow arrived: a known flow's idle clock starts again; a new one is tracked,
   * in place of the longest-idle flow when the cap is reached, or refused when none is idle.
   */
  arrive(key: FlowKey, nowUs: Micros): FlowAdmission {
    const id = flowKeyId(key);
    const known = this.flows.get(id);
    if (known) {
      if (known.queued === 0) this.markIdle(id, known, nowUs);
      return { ok: true, recycled: undefined };
    }
    let recycled: FlowKey | undefined;
    if (this.settings.maxFlows > 0 && this.flows.size >= this.settings.maxFlows) {
      const oldest = this.idle.keys().next();
      if (oldest.done) {
        const max = this.settings.maxFlows;
        return { ok: false, maxFlows: max, message: `flow control tracks ${max} flows, each with requests queued (maxFlows ${max}): a new flow is refused until one of them empties` };
      }
      recycled = this.forget(oldest.value);
    }
    const flow: Registered = { key, queued: 0, idleSinceUs: nowUs };
    this.flows.set(id, flow);
    this.idle.set(id, flow);
    this.perPriority.set(key.priority, (this.perPriority.get(key.priority) ?? 0) + 1);
    return { ok: true, recycled };
  }

  /** A request of this (arrived) flow was queued: the flow is busy and is not collected. */
  enqueued(key: FlowKey): void {
    const id = flowKeyId(key);
    const flow = this.flows.get(id);
    if (!flow) throw new Error(`flow ${key.fairnessId}/${key.priority} was queued without arriving`);
    flow.queued += 1;
    if (flow.queued === 1) this.idle.delete(id);
  }

  /** A request of this flow left its queue; the flow's idle clock starts when its last one has. */
  leftQueue(key: FlowKey, nowUs: Micros): void {
    const id = flowKeyId(key);
    const flow = this.flows.get(id);
    if (!flow || flow.queued === 0) return;
    flow.queued -= 1;
    if (flow.queued === 0) this.markIdle(id, flow, nowUs);
  }

  /** Forgets every flow idle for `gcTimeoutUs` or longer at `nowUs`; returns their keys. */
  collect(nowUs: Micros): FlowKey[] {
    const collected: FlowKey[] = [];
    for (const [id, flow] of this.idle) {
      // Idle order follows the caller's clock; a step back of that clock only delays the rest a little.
      if (nowUs - flow.idleSinceUs < this.settings.gcTimeoutUs) break;
      collected.push(this.forget(id));
    }
    return collected;
  }

  private markIdle(id: string, flow: Registered, nowUs: Micros): void {
    flow.idleSinceUs = nowUs;
    this.idle.delete(id);
    this.idle.set(id, flow);
  }

  private forget(id: string): FlowKey {
    const flow = this.flows.get(id)!;
    this.flows.delete(id);
    this.idle.delete(id);
    const left = (this.perPriority.get(flow.key.priority) ?? 1) - 1;
    if (left > 0) this.perPriority.set(flow.key.priority, left);
    else this.perPriority.delete(flow.key.priority);
    return flow.key;
  }
}
