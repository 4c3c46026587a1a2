/**
 * Whether a receiver may still take a handoff (docs/behaviour.md §6, "Handoff failures"). Its
 * sender waits for the ack until `ackByMs` (by the sender's wall clock) and then re-submits the
 * request as a new attempt; a copy taken after that would run beside the new attempt. So a copy is
 * taken only while an ack sent now can still get back in time: `marginMs` covers the ack's way
 * back and the difference between the two hosts' clocks. A copy without a give-up time (an old
 * sender) is taken.
 */
export function senderStillWaits(ackByMs: number | undefined, nowMs: number, marginMs: number): boolean {
  return ackByMs === undefined || nowMs + marginMs <= ackByMs;
}
