import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { forEachLine } from './lines.js';
import type { RunRecord } from '@sluice/metrics';
import { currentHead, currentRecord, currentReport, type RecordAsRead } from './older-report.js';
import { forEachRecordIn, recordsFileOf } from './records-file.js';
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
  if (head.recordsFile !== undefined) {
    // The records are in their own file: report.json is the head alone, as JSON.stringify prints it.
    if (records.length > 0) throw new Error(`a report naming its records file (${head.recordsFile}) holds no records itself`);
    writeFileSync(file, `${JSON.stringify(head, null, 2)}\n`);
    return;
  }
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
 * older report's names are read as today's (older-report.ts). A report naming its records file
 * (a streamed run) gets them from that file, a line at a time.
 */
export function readReportJson(file: string, options: { readonly records?: boolean } = {}): RunReportFile {
  const report = readEmbedded(file, options.records ?? true);
  if (report.recordsFile === undefined || options.records === false) return report;
  const records: RunRecord[] = [];
  forEachRecordIn(recordsFileOf(file, report.recordsFile), (record) => records.push(record));
  return { ...report, records };
}

/**
 * Each record of a report, in order, without holding them: from its records file when it names
 * one, else as readReportJson reads them.
 */
export function forEachReportRecord(file: string, onRecord: (record: RunRecord) => void): void {
  const head = readReportJson(file, { records: false });
  if (head.recordsFile !== undefined) return forEachRecordIn(recordsFileOf(file, head.recordsFile), onRecord);
  for (const record of readReportJson(file).records) onRecord(record);
}

/** A report.json as it is written, its records (if it holds them) read when asked for. */
function readEmbedded(file: string, wantRecords: boolean): RunReportFile {
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
