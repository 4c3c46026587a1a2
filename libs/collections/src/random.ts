/** mulberry32's state increment (Weyl sequence). */
const WEYL = 0x6d2b79f5;

/**
 * A seeded uniform source in [0, 1), with a bulk form for loops that draw thousands of values.
 * Calling it draws one value; `fillBelow` draws as many as it fills, the same values in the same
 * order as that many calls, without a call each (a prompt's ~500 token ids: a call per id was most
 * of the workload generator's time).
 */
export interface SeededRandom {
  (): number;
  /** `target[i] = Math.floor(draw() * bound)` for i from `from` to the end, in order. */
  fillBelow(target: Uint32Array, from: number, bound: number): void;
}

/**
 * mulberry32: a small seeded generator, so every stochastic choice is reproducible run to run
 * (a seeded source drives them all, as in llm-d-inference-sim). Pure libraries never call
 * Math.random: they take one of these. Returns numbers in [0, 1).
 */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const draw = (() => {
    state = (state + WEYL) >>> 0;
    return mulberry32Output(state);
  }) as SeededRandom;
  draw.fillBelow = (target, from, bound) => {
    let s = state;
    for (let i = from; i < target.length; i++) {
      s = (s + WEYL) >>> 0;
      target[i] = Math.floor(mulberry32Output(s) * bound);
    }
    state = s;
  };
  return draw;
}

/** mulberry32's output for a state: its bits mixed, as a fraction of 2³². */
function mulberry32Output(state: number): number {
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** A stable 32-bit seed from a string (an instance id, a policy name): FNV-1a over UTF-16 code units. */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
