export { ABSENT, StringIntTable } from './string-int-table.js';
