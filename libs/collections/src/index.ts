export { ABSENT, IdIntTable, homeOf } from './id-int-table.js';
