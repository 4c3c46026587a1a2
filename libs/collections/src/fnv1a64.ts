const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;

/**
 * 64-bit FNV-1a over the text's UTF-8 bytes, as Go's hash/fnv New64a: BLIS seeds its router's
 * random source with `seed XOR fnv1a64("router")` (docs/behaviour.md §1, BLIS parity mode).
 */
export function fnv1a64(text: string): bigint {
  let hash = OFFSET;
  for (const byte of new TextEncoder().encode(text)) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * PRIME);
  return hash;
}
