import type { Micros } from '@sluice/contracts';
import type { Bus } from './bus.js';
import { epochMicros } from './clock.js';

/** A stage that judges its peers by their silence (instance expiry). */
export interface SilenceJudge {
  suspendExpiry(): void;
  resumeExpiry(nowUs: Micros): void;
}

/**
 * While the bus is away, silence proves nothing: the stage stops expiring peers, and when the
 * connection is back every peer counts as heard now (docs/behaviour.md §6, "The bus going away").
 */
export function suspendExpiryWhileDisconnected(bus: Bus, stage: SilenceJudge): void {
  bus.onConnection((event) => (event === 'disconnected' ? stage.suspendExpiry() : stage.resumeExpiry(epochMicros())));
}
