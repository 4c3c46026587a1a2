import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECORDS_FILE, RecordsFileWriter, forEachRecordIn } from './records-file.js';
import { forEachReportRecord, readReportJson, writeReportJson } from './report-json.js';
import { syntheticReport } from './synthetic-report.js';

describe('a report naming its records file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-records-file-'));
  const { records, ...head } = syntheticReport(2_345);
  const writer = new RecordsFileWriter(join(dir, RECORDS_FILE));
  for (const r of records) writer.write(r);
  const written = writer.close();
  writeReportJson(join(dir, 'report.json'), { ...head, records: [], recordsFile: RECORDS_FILE });

  it('holds one record a line, and report.json only its head', () => {
    expect(written).toBe(2_345);
    expect(readFileSync(join(dir, RECORDS_FILE), 'utf8').split('\n').length).toBe(2_346);
    const file = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Record<string, unknown>;
    expect(file.records).toBeUndefined();
    expect(file.recordsFile).toBe(RECORDS_FILE);
  });

  it('reads back as the report that held them', () => {
    expect(readReportJson(join(dir, 'report.json'))).toEqual({ ...head, records, recordsFile: RECORDS_FILE });
    expect(readReportJson(join(dir, 'report.json'), { records: false }).records).toEqual([]);
    const ids: string[] = [];
    forEachReportRecord(join(dir, 'report.json'), (r) => ids.push(r.id));
    expect(ids).toEqual(records.map((r) => r.id));
  });

  it('refuses a report that would hold records and name a file too', () => {
    expect(() => writeReportJson(join(dir, 'both.json'), { ...head, records, recordsFile: RECORDS_FILE })).toThrow(/holds no records itself/);
  });

  it('names the line of a record that is not JSON', () => {
    writeFileSync(join(dir, 'broken.ndjson'), `${JSON.stringify(records[0])}\n{"id": "r1",\n`);
    expect(() => forEachRecordIn(join(dir, 'broken.ndjson'), () => undefined)).toThrow(/broken.ndjson:2: not a JSON record/);
  });
});
