export { ABSENT, IdIntTable } from './id-int-table.js';
export { Heap } from './heap.js';
export { seedOf, seededRandom } from './random.js';
export * from './attempt-ledger.js';
