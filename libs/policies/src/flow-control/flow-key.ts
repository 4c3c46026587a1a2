/**
 * A flow is one tenant's traffic at one priority (docs/behaviour.md §3): the fairness id comes from
 * `x-gateway-inference-fairness-id` (one shared flow per priority when absent), the priority from
 * the request's InferenceObjective. Negative priority is sheddable.
 */
export interface FlowKey {
  readonly fairnessId: string;
  readonly priority: number;
}

/** The flow's map key; a NUL cannot occur in a header value, so no two keys collide. */
export function flowKeyId(key: FlowKey): string {
  return `${key.priority}\u0000${key.fairnessId}`;
}

export function isSheddable(priority: number): boolean {
  return priority < 0;
}
