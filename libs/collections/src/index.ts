export { ABSENT, IdIntTable } from './id-int-table.js';
