export { ABSENT, IdIntTable } from './id-int-table.js';
export { Heap } from './heap.js';
export { seedOf, seededRandom, type SeededRandom } from './random.js';
export * from './attempt-ledger.js';
export { senderStillWaits } from './handoff-wait.js';
export { GoRand } from './go-rand.js';
export { fnv1a64 } from './fnv1a64.js';
