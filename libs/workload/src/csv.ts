/**
 * CSV as Go's encoding/csv reads and writes it (RFC 4180), since BLIS writes its traces with it:
 * quoted fields may hold commas, quotes (doubled) and line breaks; lines end with \n or \r\n; a
 * byte-order mark at the start is skipped; blank lines are skipped. Pure: text in, text out.
 */

/** Text that is not CSV: where (the record, 0 = the first, blank lines not counted) and why. */
export class CsvError extends Error {
  constructor(
    readonly record: number,
    readonly reason: string,
  ) {
    super(`record ${record}: ${reason}`);
    this.name = 'CsvError';
  }
}

/** Whether the text at `i` ends a line (\n, or \r\n). */
const atLineEnd = (text: string, i: number) => text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n');

/** The records of a CSV text, each a list of its fields; throws CsvError for broken quoting. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let i = text.startsWith('\uFEFF') ? 1 : 0;
  const n = text.length;
  while (i < n) {
    if (atLineEnd(text, i)) {
      i += text[i] === '\r' ? 2 : 1;
      continue;
    }
    const record = records.length;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new CsvError(record, 'unterminated quoted field');
          const ch = text[i]!;
          if (ch === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
            } else {
              i++;
              break;
            }
          } else {
            field += ch;
            i++;
          }
        }
        if (i < n && text[i] !== ',' && !atLineEnd(text, i)) throw new CsvError(record, `field ${fields.length + 1}: unexpected '${text[i]}' after a closing quote`);
      } else {
        const start = i;
        while (i < n && text[i] !== ',' && !atLineEnd(text, i)) i++;
        field = text.slice(start, i);
        if (field.includes('"')) throw new CsvError(record, `field ${fields.length + 1}: bare '"' in an unquoted field`);
      }
      fields.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r') i += 2;
      else if (text[i] === '\n') i++;
      break;
    }
    records.push(fields);
  }
  return records;
}

/** One field as Go's writer quotes it: when it holds a comma, quote or line break, or starts with a space or tab. */
function csvField(value: string): string {
  return /[",\r\n]|^[ \t]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One record as a CSV line, without its line break. */
export function csvLine(fields: readonly string[]): string {
  return fields.map(csvField).join(',');
}
