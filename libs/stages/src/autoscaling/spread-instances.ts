/**
 * How `desired` instances are spread over worker processes that run `current[i]` now and host at
 * most `slots` each: a scale-up adds to the process running the fewest, a scale-down takes from the
 * one running the most (the lowest index on a tie), so the pool stays even, as a Deployment's pods
 * spread over nodes. Returns each process's new count; their sum is `desired`, capped at what the
 * processes host.
 */
export function spreadInstances(current: readonly number[], slots: number, desired: number): number[] {
  const counts = [...current];
  let total = counts.reduce((a, b) => a + b, 0);
  const capacity = counts.length * slots;
  const target = Math.max(0, Math.min(desired, capacity));
  while (total < target) {
    let pick = -1;
    for (let i = 0; i < counts.length; i++) if (counts[i]! < slots && (pick < 0 || counts[i]! < counts[pick]!)) pick = i;
    counts[pick]!++;
    total++;
  }
  while (total > target) {
    let pick = 0;
    for (let i = 1; i < counts.length; i++) if (counts[i]! > counts[pick]!) pick = i;
    counts[pick]!--;
    total--;
  }
  return counts;
}
