import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { RunRecord } from '@sluice/metrics';
import { currentHead, currentRecord, currentReport, type RecordAsRead } from './older-report.js';
import type { RunReportFile } from './run-report-file.js';

/**
 * report.json, written and read one record per line. It stays one JSON document (any JSON reader
 * takes it), but the writer never builds it as one string: a million twin records make a file of
 * ~2.8 GB, past the longest string V8 can hold (~512 MB), and `JSON.stringify` of the whole report
 * failed with "Invalid string length" from ~150,000 requests on. Everything but the records is
 * pretty-printed above them.
 */

/** The line that opens the records: what the reader looks for. */
const RECORDS_OPEN = '  "records": [';
const RECORDS_CLOSE = '  ]';
/** Records joined into one write: few syscalls, and strings far below the limit. */
const RECORDS_PER_WRITE = 1_000;

export function writeReportJson(file: string, report: RunReportFile): void {
  const { records, ...head } = report;
  const fd = openSync(file, 'w');
  try {
    // The head as JSON.stringify(…, null, 2) prints it, without its closing brace.
    const headText = JSON.stringify(head, null, 2);
    writeSync(fd, `${headText.slice(0, headText.lastIndexOf('\n}'))},\n`);
    if (records.length === 0) {
      writeSync(fd, `${RECORDS_OPEN}]\n}\n`);
      return;
    }
    writeSync(fd, `${RECORDS_OPEN}\n`);
    for (let start = 0; start < records.length; start += RECORDS_PER_WRITE) {
      const end = Math.min(start + RECORDS_PER_WRITE, records.length);
      const lines: string[] = [];
      for (let i = start; i < end; i++) lines.push(`    ${JSON.stringify(records[i])}${i + 1 < records.length ? ',' : ''}`);
      writeSync(fd, `${lines.join('\n')}\n`);
    }
    writeSync(fd, `${RECORDS_CLOSE}\n}\n`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a report.json. One written by `writeReportJson` is read line by line, so its size is not
 * bounded by the longest string; with `records: false` reading stops where the records begin (a
 * comparison needs only the summaries). Any other layout of the same JSON is parsed whole. An
 * older report's names are read as today's (older-report.ts).
 */
export function readReportJson(file: string, options: { readonly records?: boolean } = {}): RunReportFile {
  const wantRecords = options.records ?? true;
  const head: string[] = [];
  const records: RunRecord[] = [];
  let part: 'head' | 'records' | 'tail' | 'other' = 'head';
  forEachLine(file, (line) => {
    if (part === 'head') {
      if (line === RECORDS_OPEN) {
        part = 'records';
        return wantRecords;
      }
      head.push(line);
      return true;
    }
    if (part !== 'records') return true;
    if (line === RECORDS_CLOSE) {
      part = 'tail';
      return true;
    }
    if (records.length === 0 && line === '    {') {
      // Pretty-printed records (as reports were first written): not one per line.
      part = 'other';
      return false;
    }
    records.push(currentRecord(JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line) as RecordAsRead));
    return true;
  });
  // Another layout: the whole document is in `head`, or to be parsed whole.
  if (part === 'head') return currentReport(JSON.parse(head.join('\n')) as RunReportFile);
  if (part === 'other') return currentReport(JSON.parse(readFileSync(file, 'utf8')) as RunReportFile);
  const parsed = JSON.parse(`${head.join('\n')}\n  "records": []\n}`) as RunReportFile;
  return { ...currentHead(parsed), records };
}

/** Calls `onLine` with each line of the file (without its newline) until it returns false. */
export function forEachLine(file: string, onLine: (line: string) => boolean): void {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(1 << 22);
    const decoder = new StringDecoder('utf8');
    let pending = '';
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      const text = pending + (read > 0 ? decoder.write(buffer.subarray(0, read)) : decoder.end());
      let start = 0;
      for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
        if (!onLine(text.slice(start, newline))) return;
        start = newline + 1;
      }
      pending = text.slice(start);
      if (read === 0) break;
    }
    if (pending !== '') onLine(pending);
  } finally {
    closeSync(fd);
  }
}
