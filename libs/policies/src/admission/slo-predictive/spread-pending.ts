/**
 * Where `pending` requests not yet on any instance will queue, as a load-balancing router spreads
 * them: each to the instance with the shortest queue (water-filling). Returns each instance's
 * queue afterwards, in the order given; ties go to the earlier instance, so it is deterministic.
 * O(m log m) for m instances, whatever `pending` is.
 */
export function spreadPending(queueDepths: readonly number[], pending: number): number[] {
  const after = [...queueDepths];
  if (pending <= 0 || after.length === 0) return after;
  const order = after.map((_, i) => i).sort((a, b) => after[a]! - after[b]! || a - b);
  // Raise the k shortest queues to a common level while the pending requests last.
  let k = 0;
  let sum = 0;
  while (k < order.length) {
    const next = after[order[k]!]!;
    // Raising the first k to `next` costs k·next − sum; stop if that is more than there is.
    if (k > 0 && k * next - sum > pending) break;
    sum += next;
    k++;
  }
  const total = sum + pending;
  const level = Math.floor(total / k);
  let extra = total - level * k;
  for (let j = 0; j < k; j++) {
    const i = order[j]!;
    after[i] = level + (extra > 0 ? 1 : 0);
    if (extra > 0) extra--;
  }
  return after;
}
