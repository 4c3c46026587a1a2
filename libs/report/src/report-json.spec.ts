import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticReport } from './synthetic-report.js';
import { readReportJson, writeReportJson } from './report-json.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-report-file-'));
/** A run large enough to pass the 4 MB read buffer, and a tenant of two-byte characters. */
const N_LARGE = 6_300;
const FAIRNESS_ID_OF_E = 'é'.repeat(303);

/** A report's text as sluice wrote it before the fairness id had one name: records' `tenant`, the summary's `byTenant`. */
function asOlderReport(text: string): string {
  const older = text.replaceAll('"fairnessId":', '"tenant":').replace('"byFairnessId":', '"byTenant":').replace('"outputTokensByFairnessId":', '"outputTokensByTenant":');
  expect(older).not.toContain('airnessId');
  return older;
}

describe('report.json', () => {
  it('is one JSON document with one record per line, read back as written', () => {
    const report = syntheticReport(40);
    const file = join(dir, 'small.json');
    writeReportJson(file, report);
    const text = readFileSync(file, 'utf8');
    expect(JSON.parse(text)).toEqual(report);
    const recordLines = text.split('\n').filter((line) => line.startsWith('    {"id":'));
    expect(recordLines).toHaveLength(40);
    expect(readReportJson(file)).toEqual(report);
  });

  it('reads the summaries without the records when asked to', () => {
    const report = syntheticReport(40);
    const file = join(dir, 'summary-only.json');
    writeReportJson(file, report);
    const { records, ...head } = readReportJson(file, { records: false });
    expect(records).toEqual([]);
    const { records: _all, ...expected } = report;
    expect(head).toEqual(expected);
  });

  it('reads lines across its read buffer, multi-byte characters split included', () => {
    // Past the 4 MB read buffer, which ends inside an 'é': a UTF-8 continuation byte sits there.
    // The tenant's name grows a character at a time until the boundary falls inside one (a
    // layout change to the report moves it).
    const file = join(dir, 'large.json');
    let report = syntheticReport(N_LARGE, FAIRNESS_ID_OF_E);
    for (let length = FAIRNESS_ID_OF_E.length + 1; ; length++) {
      writeReportJson(file, report);
      const bytes = readFileSync(file);
      expect(bytes.length).toBeGreaterThan(1 << 22);
      if ((bytes[1 << 22]! & 0xc0) === 0x80) break;
      expect(length, 'no tenant name put the boundary inside a character').toBeLessThan(FAIRNESS_ID_OF_E.length + 50);
      report = syntheticReport(N_LARGE, 'é'.repeat(length));
    }
    expect(readReportJson(file)).toEqual(report);
  });

  it('writes a run without records, and reads reports pretty-printed whole', () => {
    const empty = { ...syntheticReport(0), records: [] };
    writeReportJson(join(dir, 'empty.json'), empty);
    expect(JSON.parse(readFileSync(join(dir, 'empty.json'), 'utf8'))).toEqual(empty);
    expect(readReportJson(join(dir, 'empty.json'))).toEqual(empty);
    const report = syntheticReport(12);
    writeFileSync(join(dir, 'pretty.json'), JSON.stringify(report, null, 2));
    expect(readReportJson(join(dir, 'pretty.json'))).toEqual(report);
    writeFileSync(join(dir, 'compact.json'), JSON.stringify(report));
    expect(readReportJson(join(dir, 'compact.json'))).toEqual(report);
  });

  it('reads an older report (records\' tenant, the summary\'s byTenant) as one written today, in every layout', () => {
    const report = syntheticReport(40);
    const file = join(dir, 'older.json');
    writeReportJson(file, report);
    writeFileSync(file, asOlderReport(readFileSync(file, 'utf8')));
    const read = readReportJson(file);
    expect(read).toEqual(report);
    expect(Object.keys(read.records[0]!)).toEqual(Object.keys(report.records[0]!));
    expect(Object.keys(read.summary)).toEqual(Object.keys(report.summary));
    const { records: _all, ...head } = report;
    expect(readReportJson(file, { records: false })).toEqual({ ...head, records: [] });
    writeFileSync(join(dir, 'older-pretty.json'), asOlderReport(JSON.stringify(report, null, 2)));
    expect(readReportJson(join(dir, 'older-pretty.json'))).toEqual(report);
    writeFileSync(join(dir, 'older-compact.json'), asOlderReport(JSON.stringify(report)));
    expect(readReportJson(join(dir, 'older-compact.json'))).toEqual(report);
  });
});
