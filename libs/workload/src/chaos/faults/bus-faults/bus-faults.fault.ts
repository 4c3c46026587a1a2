import { z } from 'zod';
import { defineFault, type TwinPlan } from '../fault-definition.js';
import { AT, Ms, Percent, PositiveMs } from '../fault-fields.js';
import type { FaultControls } from '../live-ports.js';
import type { TwinFaultPort } from '../twin-port.js';

/** Bus faults on a subject pattern (NATS wildcards), as Envoy's fault filter: delay, drop, duplicate. */
export const BusFaultsFaultSchema = z.strictObject({
  ...AT,
  action: z.literal('bus-faults'),
  subject: z.string().min(1),
  delayMs: Ms.default(0),
  jitterMs: Ms.default(0),
  dropPercent: Percent.default(0),
  duplicatePercent: Percent.default(0),
  forMs: PositiveMs.optional(),
});
export type BusFaultsFault = z.output<typeof BusFaultsFaultSchema>;

/** The rule as every process's bus takes it. */
const ruleOf = ({ subject, delayMs, jitterMs, dropPercent, duplicatePercent }: BusFaultsFault) => ({ subject, delayMs, jitterMs, dropPercent, duplicatePercent });

/** Set in every process by control message, alike on a local cluster and under compose; cleared by its exact pattern. */
const byControlMessage = {
  run: (fault: BusFaultsFault, { controls }: { controls: FaultControls }) => ({
    start: () => controls.setBusFault(ruleOf(fault)),
    undo: () => controls.clearBusFault(fault.subject),
  }),
};

export const busFaultsFault = defineFault({
  action: 'bus-faults',
  schema: BusFaultsFaultSchema,
  examples: [{ atMs: 8_000, action: 'bus-faults', subject: 'sluice.v1.router.submit', delayMs: 200, jitterMs: 100, dropPercent: 5, duplicatePercent: 5, forMs: 15_000 }],
  target: (fault) => fault.subject,
  byMessage: true,
  local: byControlMessage,
  compose: byControlMessage,
  twin: { plan: planRule },
});

/**
 * The twin carries only the submit subjects and the load snapshots as messages: a rule reaching
 * none of them changes nothing there, and what it names beyond them is noted in the detail.
 */
function planRule(fault: BusFaultsFault, twin: TwinFaultPort): TwinPlan {
  const reach = twin.busRuleReach(fault.subject);
  if (reach.hops.length === 0) {
    return { target: fault.subject, notModelled: `bus-faults on ${fault.subject}: no hop the twin carries matches it (request submits and load snapshots only)` };
  }
  const uncarried = reach.notCarried.length > 0 ? `; not carried by the twin, so unfaulted: ${reach.notCarried.join(', ')}` : '';
  const duplicates = fault.duplicatePercent > 0 ? '; duplicates change nothing (each attempt is served once)' : '';
  const scope = `on ${reach.hops.join(', ')}${uncarried}${duplicates}`;
  const knobs = [
    fault.delayMs > 0 ? `delay ${fault.delayMs} ms` : undefined,
    fault.jitterMs > 0 ? `jitter ≤ ${fault.jitterMs} ms` : undefined,
    fault.dropPercent > 0 ? `drop ${fault.dropPercent}%` : undefined,
    fault.duplicatePercent > 0 ? `duplicate ${fault.duplicatePercent}%` : undefined,
  ].filter((k) => k !== undefined);
  return {
    target: fault.subject,
    run: {
      start: () => {
        twin.setBusRule(ruleOf(fault));
        return `rule on ${fault.subject} (${knobs.join(', ') || 'no knob on'}) ${scope}`;
      },
      undo: () => {
        twin.clearBusRule(fault.subject);
        return `rule on ${fault.subject} cleared`;
      },
    },
  };
}
