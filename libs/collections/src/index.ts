export { ABSENT, StringIntTable, hashOf } from './string-int-table.js';
