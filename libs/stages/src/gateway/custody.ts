import type { HeldFrame, Micros, MigrationReason, Stage } from '@sluice/contracts';

/** The order of the stages a request passes: a `held` frame never moves a request backwards. */
const HOP: Record<Stage, number> = { gateway: 0, admission: 1, flow: 2, router: 3, worker: 4 };

interface Custodied {
  attempt: number;
  migrations: number;
  holder: string | undefined;
  stage: Stage | undefined;
}

/** A request whose holder went silent: what the gateway re-submits. */
export interface LostHolding {
  readonly requestId: string;
  readonly attempt: number;
  readonly holder: string;
  readonly stage: Stage;
}

export type MigrationVerdict =
  | { readonly kind: 'resubmit'; readonly attempt: number; readonly migrations: number }
  /** The migration limit is spent: the request ends (worker_lost / stage_lost). */
  | { readonly kind: 'exhausted'; readonly migrations: number }
  /** Not the request's current attempt (a second report of the same loss, a stale frame): nothing to do. */
  | { readonly kind: 'ignored' };

export interface CustodySettings {
  /** A holder silent for longer is lost. */
  readonly heartbeatTimeoutUs: Micros;
  /** Re-submissions allowed per request (0 = none). */
  readonly migrationLimit: number;
}

/**
 * The gateway owns every request until its terminal outcome (docs/architecture.md, "Faults"). This
 * is what it knows to keep that promise: for each open request its current attempt, who holds it
 * (from the stages' `held` frames) and how often it was re-submitted; for each holder (a service
 * process or a worker instance) when it was last heard (presence heartbeats, instance lifecycle).
 * A request whose holder has been silent longer than the heartbeat timeout is reported lost, so the
 * gateway re-submits it long before its deadline. While the gateway's own bus connection is down,
 * silence proves nothing: expiry is suspended, and everyone counts as heard when it comes back.
 * Pure: the caller passes the time.
 */
export class Custody {
  private readonly requests = new Map<string, Custodied>();
  private readonly lastHeard = new Map<string, Micros>();
  private suspended = false;

  constructor(private readonly settings: CustodySettings) {}

  open(requestId: string): void {
    this.requests.set(requestId, { attempt: 0, migrations: 0, holder: undefined, stage: undefined });
  }

  close(requestId: string): void {
    this.requests.delete(requestId);
  }

  attemptOf(requestId: string): number | undefined {
    return this.requests.get(requestId)?.attempt;
  }

  /** Frames of other attempts are stale: a superseded copy still running somewhere. */
  isCurrent(requestId: string, attempt: number): boolean {
    return this.requests.get(requestId)?.attempt === attempt;
  }

  /**
   * A stage took the request: it holds it now (unless the frame is stale or behind a later hop's).
   * 'second copy': a worker instance took the attempt another already holds (a duplicated handoff
   * that replicas of a stage each forwarded); the first keeps it.
   */
  held(frame: Pick<HeldFrame, 'requestId' | 'attempt' | 'stage' | 'holder'>, nowUs: Micros): 'second copy' | undefined {
    const entry = this.requests.get(frame.requestId);
    if (!entry || entry.attempt !== frame.attempt) return undefined;
    if (frame.stage === 'worker' && entry.stage === 'worker' && entry.holder !== frame.holder) return 'second copy';
    if (entry.stage !== undefined && HOP[frame.stage] < HOP[entry.stage]) return undefined;
    entry.holder = frame.holder;
    entry.stage = frame.stage;
    // A holder first heard of through a request is alive now (its first heartbeat may still be on the way).
    if (!this.lastHeard.has(frame.holder)) this.lastHeard.set(frame.holder, nowUs);
    return undefined;
  }

  /** A heartbeat (presence or an instance's lifecycle event) from a holder. */
  heard(holder: string, nowUs: Micros): void {
    this.lastHeard.set(holder, nowUs);
  }

  holderOf(requestId: string): { readonly holder: string | undefined; readonly stage: Stage | undefined } | undefined {
    const entry = this.requests.get(requestId);
    return entry && { holder: entry.holder, stage: entry.stage };
  }

  /**
   * Re-submits the request's current attempt as a new one, if the limit allows. `attempt` is the
   * attempt being handed back: a report about an older one is ignored, so the router's migrate frame
   * and the gateway's own detection of the same loss re-submit once. A hand-back for want of the
   * next stage does not spend the limit (`spendsLimit` false): the gateway bounds those by time.
   */
  migrate(requestId: string, attempt: number, spendsLimit = true): MigrationVerdict {
    const entry = this.requests.get(requestId);
    if (!entry || entry.attempt !== attempt) return { kind: 'ignored' };
    if (spendsLimit && entry.migrations >= this.settings.migrationLimit) return { kind: 'exhausted', migrations: entry.migrations };
    entry.attempt += 1;
    if (spendsLimit) entry.migrations += 1;
    entry.holder = undefined;
    entry.stage = undefined;
    return { kind: 'resubmit', attempt: entry.attempt, migrations: entry.migrations };
  }

  /**
   * The current attempt may have been taken by a stage that has not said so (its handoff was not
   * acked in time: the receiver may be frozen with it in its socket): the request goes on as a new
   * attempt, so that copy, if it is ever taken, is stale everywhere. Not a migration: nothing was
   * lost, so the migration limit is not spent. Returns the new attempt.
   */
  supersede(requestId: string): number | undefined {
    const entry = this.requests.get(requestId);
    if (!entry) return undefined;
    entry.attempt += 1;
    entry.holder = undefined;
    entry.stage = undefined;
    return entry.attempt;
  }

  /** Requests whose holder has been silent longer than the heartbeat timeout (none while suspended). */
  lost(nowUs: Micros): LostHolding[] {
    if (this.suspended) return [];
    const silent = new Set<string>();
    for (const [holder, heardUs] of this.lastHeard) {
      if (nowUs - heardUs > this.settings.heartbeatTimeoutUs) silent.add(holder);
    }
    if (silent.size === 0) return [];
    for (const holder of silent) this.lastHeard.delete(holder);
    const lost: LostHolding[] = [];
    for (const [requestId, entry] of this.requests) {
      if (entry.holder !== undefined && entry.stage !== undefined && silent.has(entry.holder)) {
        lost.push({ requestId, attempt: entry.attempt, holder: entry.holder, stage: entry.stage });
      }
    }
    return lost;
  }

  /** The gateway's bus connection is down: no holder can be judged by its silence. */
  suspend(): void {
    this.suspended = true;
  }

  /**
   * The connection is back: every known holder counts as heard now. Returns the open requests with
   * their current attempt and where they stand, which the gateway re-submits: frames sent to it
   * during the outage may be lost.
   */
  resume(nowUs: Micros): { readonly requestId: string; readonly attempt: number; readonly stage: Stage | undefined; readonly reason: MigrationReason }[] {
    this.suspended = false;
    for (const holder of this.lastHeard.keys()) this.lastHeard.set(holder, nowUs);
    return [...this.requests].map(([requestId, e]) => ({ requestId, attempt: e.attempt, stage: e.stage, reason: 'bus_reconnected' as const }));
  }

  size(): number {
    return this.requests.size;
  }
}
