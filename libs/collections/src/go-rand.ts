import { GO_RNG_COOKED } from './go-rand-cooked.js';

/** Lags of Go's additive lagged Fibonacci generator (Mitchell and Reeds): x[n] = x[n−607] + x[n−273] mod 2^64. */
const LEN = 607;
const TAP = 273;
const INT32_MAX = 2 ** 31 - 1;
/** What Go seeds with when the seed reduces to 0 (0 is a fixed point of the seeding generator). */
const ZERO_SEED = 89482311;

/**
 * x ↦ 48271·x mod (2^31 − 1) by Schrage's method, as Go computes it in int32: every product
 * stays below 2^31, so doubles give Go's exact values.
 */
function seedrand(x: number): number {
  const hi = Math.trunc(x / 44488);
  const lo = x % 44488;
  const next = 48271 * lo - 3399 * hi;
  return next < 0 ? next + INT32_MAX : next;
}

/**
 * Go's math/rand (v1) as `rand.New(rand.NewSource(seed))`: the same value stream for the same
 * int64 seed, so a choice BLIS makes with `rng.Intn(n)` is made the same way here (BLIS parity
 * mode's tie-breaks, docs/behaviour.md §1). Pure and deterministic; only what BLIS calls is here.
 */
export class GoRand {
  /** The generator's state; a BigInt64Array wraps each store to 64 bits, as Go's int64 addition does. */
  private readonly vec = new BigInt64Array(LEN);
  private tap = 0;
  private feed = LEN - TAP;

  /** `seed` is Go's int64: a bigint is taken mod 2^64 as a signed value, a number must be a safe integer. */
  constructor(seed: bigint | number) {
    if (typeof seed === 'number' && !Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
    // Go: seed % int32max with Go's sign rules (a bigint's % truncates toward zero too), then into [1, int32max).
    let s = Number(BigInt.asIntN(64, BigInt(seed)) % BigInt(INT32_MAX));
    if (s < 0) s += INT32_MAX;
    if (s === 0) s = ZERO_SEED;
    let x = s;
    // 20 warm-up rounds, then three draws per slot, spread over the 64 bits and mixed with the table.
    for (let i = -20; i < LEN; i++) {
      x = seedrand(x);
      if (i < 0) continue;
      let u = BigInt(x) << 40n;
      x = seedrand(x);
      u ^= BigInt(x) << 20n;
      x = seedrand(x);
      u ^= BigInt(x);
      this.vec[i] = u ^ GO_RNG_COOKED[i]!;
    }
  }

  /** A non-negative 63-bit integer (Go's Int63). */
  int63(): bigint {
    if (--this.tap < 0) this.tap += LEN;
    if (--this.feed < 0) this.feed += LEN;
    this.vec[this.feed] = this.vec[this.feed]! + this.vec[this.tap]!;
    return BigInt.asUintN(63, this.vec[this.feed]!);
  }

  /** A non-negative 31-bit integer: Int63's top 31 bits (Go's Int31). */
  int31(): number {
    return Number(this.int63() >> 32n);
  }

  /** Uniform in [0, n), for 0 < n < 2^31, by Go's rejection rule (Go's Int31n): the same draws, the same result. */
  int31n(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > INT32_MAX) throw new RangeError(`n must be an integer in [1, 2^31), got ${n}`);
    if ((n & (n - 1)) === 0) return this.int31() & (n - 1);
    const max = INT32_MAX - (2 ** 31 % n);
    let v = this.int31();
    while (v > max) v = this.int31();
    return v % n;
  }

  /** Go's Intn for the n a tie-break needs (below 2^31, where Go's Intn is Int31n). */
  intn(n: number): number {
    return this.int31n(n);
  }
}
