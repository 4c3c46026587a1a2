import type { Micros, PresenceEvent } from '@sluice/contracts';

/**
 * The processes of one stage that share its queue group, as their presence events tell (this
 * process's own included, once its `up` comes back): how many split the arrivals. One silent past
 * the heartbeat timeout, or gone `down`, no longer counts. Pure: times are passed in.
 */
export class ReplicaSet {
  private readonly lastHeard = new Map<string, Micros>();

  constructor(private readonly heartbeatTimeoutUs: Micros) {}

  onPresence(event: Pick<PresenceEvent, 'processId' | 'type'>, nowUs: Micros): void {
    if (event.type === 'down') this.lastHeard.delete(event.processId);
    else this.lastHeard.set(event.processId, nowUs);
  }

  /** Forgets replicas silent past the heartbeat timeout. */
  expire(nowUs: Micros): void {
    for (const [id, heardUs] of this.lastHeard) if (nowUs - heardUs > this.heartbeatTimeoutUs) this.lastHeard.delete(id);
  }

  /** Every replica counts as heard now (the caller's bus was down: their silence was its). */
  touchAll(nowUs: Micros): void {
    for (const id of this.lastHeard.keys()) this.lastHeard.set(id, nowUs);
  }

  /** The replicas sharing the arrivals: at least 1 (this one, before it hears itself). */
  get count(): number {
    return Math.max(1, this.lastHeard.size);
  }
}
