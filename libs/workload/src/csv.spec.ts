import { describe, expect, it } from 'vitest';
import { CsvError, csvLine, parseCsv } from './csv.js';

describe('parseCsv', () => {
  it('reads records and their fields, empty ones included, with or without a last line break', () => {
    expect(parseCsv('a,b,c\n1,,3\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '', '3'],
    ]);
    expect(parseCsv('a,b\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(parseCsv('a,\n')).toEqual([['a', '']]);
    expect(parseCsv('')).toEqual([]);
  });

  it('ends lines at \\n or \\r\\n, keeps a lone \\r in a field, skips blank lines and a byte-order mark', () => {
    expect(parseCsv('\uFEFFa,b\r\n\r\n1,2\n\n3,4\r\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
    expect(parseCsv('a\rb,c\n')).toEqual([['a\rb', 'c']]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks, and keeps spaces', () => {
    expect(parseCsv('"a,b","say ""hi""","two\nlines", x \n""\n')).toEqual([['a,b', 'say "hi"', 'two\nlines', ' x '], ['']]);
    expect(parseCsv('"a"\r\n"b"')).toEqual([['a'], ['b']]);
  });

  it('names the record and field of broken quoting, counting records without blank lines', () => {
    expect(() => parseCsv('a\n\n"b,c')).toThrow(new CsvError(1, 'unterminated quoted field'));
    expect(() => parseCsv('a,"b"c\n')).toThrow(`record 0: field 2: unexpected 'c' after a closing quote`);
    expect(() => parseCsv('a\nb,c"d\n')).toThrow(`record 1: field 2: bare '"' in an unquoted field`);
    expect(() => parseCsv('"')).toThrow(CsvError);
  });
});

describe('csvLine', () => {
  it('quotes a field only where Go’s writer does, doubling its quotes', () => {
    expect(csvLine(['a', '', 'b c'])).toBe('a,,b c');
    expect(csvLine(['a,b', 'say "hi"', 'x\ny', 'x\ry', ' lead', '\tlead', 'trail '])).toBe('"a,b","say ""hi""","x\ny","x\ry"," lead","\tlead",trail ');
  });

  it('writes what parseCsv reads back', () => {
    const records = [
      ['request_id', 'error_message'],
      ['1', 'upstream said "no", then hung up\r\nand left'],
      ['2', ' '],
    ];
    expect(parseCsv(records.map(csvLine).join('\n'))).toEqual(records);
  });
});
