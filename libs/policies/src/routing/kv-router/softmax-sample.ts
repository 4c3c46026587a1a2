/**
 * Dynamo's choice among costs (ai-dynamo/dynamo lib/kv-router/src/scheduling/selector.rs,
 * softmax_sample, at ccd1706e138fe41b54b85305598ad6b748f377fe): at temperature 0, the lowest
 * cost, its ties settled by `breakTie` (given their indices, in order); above 0, a draw from the
 * softmax of −cost / (range · temperature), the costs normalised by their range so the
 * temperature means the same whatever their scale; all equal: uniform. One draw of `random` per
 * sampled choice. Returns the chosen index.
 */
export function softmaxSampleLowest(costs: readonly number[], temperature: number, random: () => number, breakTie: (tied: number[]) => number): number {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const c of costs) {
    if (c < min) min = c;
    if (c > max) max = c;
  }
  if (temperature === 0) {
    const tied: number[] = [];
    costs.forEach((c, i) => c === min && tied.push(i));
    return tied.length === 1 ? tied[0]! : breakTie(tied);
  }
  const range = max - min;
  // exp of a value ≤ 0: the cheapest weighs 1, the dearest exp(−1/temperature).
  const weights = costs.map((c) => (range === 0 ? 1 : Math.exp(-(c - min) / (range * temperature))));
  let total = 0;
  for (const w of weights) total += w;
  const sample = random() * total;
  let cumulative = 0;
  for (let i = 0; i < weights.length; i++) {
    cumulative += weights[i]!;
    if (sample < cumulative) return i;
  }
  return weights.length - 1;
}
