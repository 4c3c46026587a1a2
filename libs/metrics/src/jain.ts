/**
 * Jain's fairness index (Σx)² / (N·Σx²), in [1/N, 1]. Defined as 1 for an empty list, a single
 * value, or all zeros (nobody got anything, so nobody got less).
 */
export function jainIndex(values: readonly number[]): number {
  const n = values.length;
  if (n <= 1) return 1;
  let sum = 0;
  let sumSq = 0;
  for (const x of values) {
    sum += x;
    sumSq += x * x;
  }
  if (sumSq === 0) return 1;
  return (sum * sum) / (n * sumSq);
}
