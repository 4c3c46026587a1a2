/**
 * A sum of doubles rounded once, at the end: the same result in whatever order the terms come.
 * A report's mean was the running sum of its samples in record order, so a streamed run, whose
 * records come in the order they settle, would differ from the kept run of the same requests in
 * the last bits. Kept as non-overlapping partials whose exact sum is the sum of every term added
 * (J. R. Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric
 * Predicates", 1997, the GROW-EXPANSION step; the method behind Python's `math.fsum`). Samples of
 * one scale keep two or three partials, so an addition costs a few flops more than `+=`.
 */
export class ExactSum {
  /** Non-overlapping, in increasing magnitude; their exact sum is the sum so far. */
  private readonly partials: number[] = [];

  add(value: number): void {
    const { partials } = this;
    let x = value;
    let kept = 0;
    for (let j = 0; j < partials.length; j++) {
      let y = partials[j]!;
      if (Math.abs(x) < Math.abs(y)) {
        const t = x;
        x = y;
        y = t;
      }
      const hi = x + y;
      // Knuth's two-sum with |x| ≥ |y|: hi + lo is exactly x + y.
      const lo = y - (hi - x);
      if (lo !== 0) partials[kept++] = lo;
      x = hi;
    }
    if (kept < partials.length) partials.length = kept;
    partials.push(x);
  }

  /** value × count, exactly (Dekker's product: the rounded product and its rounding error). */
  addTimes(value: number, count: number): void {
    const product = value * count;
    this.add(product);
    this.add(productError(value, count, product));
  }

  /** The sum, correctly rounded (to nearest, ties to even). */
  value(): number {
    const { partials } = this;
    let n = partials.length;
    if (n === 0) return 0;
    let hi = partials[--n]!;
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = partials[--n]!;
      hi = x + y;
      lo = y - (hi - x);
      if (lo !== 0) break;
    }
    // Halfway between two doubles, the partials below say which way the exact sum lies.
    if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
    return hi;
  }
}

/** 2²⁷ + 1: splits a double into two halves of 26 bits whose products are exact (Veltkamp). */
const SPLITTER = 134_217_729;

/** a·b − product exactly, for product = fl(a·b) (T. J. Dekker, 1971, "A floating-point technique…"). */
function productError(a: number, b: number, product: number): number {
  const ca = SPLITTER * a;
  const aHi = ca - (ca - a);
  const aLo = a - aHi;
  const cb = SPLITTER * b;
  const bHi = cb - (cb - b);
  const bLo = b - bHi;
  return aLo * bLo - (((product - aHi * bHi) - aLo * bHi) - aHi * bLo);
}
