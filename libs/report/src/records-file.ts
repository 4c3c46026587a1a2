import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { RunRecord } from '@sluice/metrics';
import { currentRecord, type RecordAsRead } from './older-report.js';
import { forEachLine } from './lines.js';

/**
 * A run's records as NDJSON, one JSON record a line, in a file beside report.json that the report
 * names (`recordsFile`) instead of holding them: what a streamed `sluice simulate` writes as each
 * record settles (docs/twin.md, "Streamed runs"). Written and read a line at a time, so neither
 * side holds the run.
 */
export const RECORDS_FILE = 'records.ndjson';

/** Records joined into one write: few syscalls, strings far below V8's limit. */
const RECORDS_PER_WRITE = 1_000;

export class RecordsFileWriter {
  private readonly fd: number;
  private pending: string[] = [];
  private written = 0;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'w');
  }

  write(record: RunRecord): void {
    this.pending.push(JSON.stringify(record));
    if (this.pending.length === RECORDS_PER_WRITE) this.flush();
  }

  /** Writes what is pending and closes the file; returns how many records it holds. */
  close(): number {
    this.flush();
    closeSync(this.fd);
    return this.written;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    writeSync(this.fd, `${this.pending.join('\n')}\n`);
    this.written += this.pending.length;
    this.pending = [];
  }
}

/** The records file a report names, beside the report (a relative name is the report's folder's). */
export function recordsFileOf(reportFile: string, recordsFile: string): string {
  const file = isAbsolute(recordsFile) ? recordsFile : join(dirname(reportFile), recordsFile);
  if (!existsSync(file)) throw new Error(`${reportFile} keeps its records in ${recordsFile} beside it (a streamed run), and ${file} does not exist: copy the two files together`);
  return file;
}

/** Each record of an NDJSON records file, in order, under today's names. */
export function forEachRecordIn(file: string, onRecord: (record: RunRecord) => void): void {
  let line = 0;
  forEachLine(file, (text) => {
    line++;
    if (text === '') return true;
    let parsed: RecordAsRead;
    try {
      parsed = JSON.parse(text) as RecordAsRead;
    } catch (error) {
      throw new Error(`${file}:${line}: not a JSON record (${(error as Error).message})`, { cause: error });
    }
    onRecord(currentRecord(parsed));
    return true;
  });
}
