import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autoscalerSection } from './autoscaler-section.js';
import { renderReportHtml } from './render-html.js';
import { SYNTHETIC_CHAOS } from './synthetic-chaos.js';
import { syntheticReport } from './synthetic-report.js';

const run = promisify(execFile);
const CHROMIUM = 'chromium';
const PLOTS = ['ttft-cdf', 'latency-over-time', 'outcomes-over-time', 'worker-load', 'queue-per-priority'];

/** Loads the file in headless Debian chromium and returns the DOM after the inline script ran. */
async function dumpDom(file: string): Promise<string> {
  try {
    const { stdout } = await run(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--dump-dom', pathToFileURL(file).href], {
      timeout: 45_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('chromium is not installed: install it with `apt-get install -y --no-install-recommends chromium` (.ci/run does)', { cause: e });
    }
    throw e;
  }
}

/** Each `<svg data-plot>` of the serialized DOM: its attributes and its inner markup (plots hold no nested svg). */
function plots(dom: string): { name: string; attrs: string; inner: string }[] {
  return [...dom.matchAll(/<svg\b([^>]*\bdata-plot="([^"]*)"[^>]*)>([\s\S]*?)<\/svg>/g)].map((m) => ({ attrs: m[1]!, name: m[2]!, inner: m[3]! }));
}

const count = (html: string, tag: string): number => html.match(new RegExp(`<${tag}\\b`, 'g'))?.length ?? 0;

describe('report.html in headless chromium', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-report-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('draws every plot without a script error', async () => {
    const report = syntheticReport(40);
    expect(new Set(report.records.map((r) => r.outcome))).toEqual(new Set(['completed', 'rejected']));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderReportHtml(report));

    const dom = await dumpDom(file);
    expect(dom).toMatch(/<body\b/);
    const body = /<body\b[^>]*>/.exec(dom)![0];
    expect(body).not.toContain('data-error');

    const found = plots(dom);
    expect(found.map((p) => p.name)).toEqual(PLOTS);
    for (const p of found) {
      const drawn = /\bdata-drawn="(\d+)"/.exec(p.attrs);
      expect(drawn, `${p.name} has data-drawn`).not.toBeNull();
      expect(Number(drawn![1]), `${p.name} series drawn`).toBeGreaterThanOrEqual(1);
      const marks = count(p.inner, 'path') + count(p.inner, 'polyline') + count(p.inner, 'circle') + count(p.inner, 'rect');
      expect(marks, `${p.name} drawn elements`).toBeGreaterThan(0);
    }
    // 2 SLO classes, 2 instances, 2 priorities, 2 outcomes, TTFT + E2E.
    for (const p of found) expect(p.attrs, p.name).toContain('data-drawn="2"');
  });

  it('draws "no data" for an empty run', async () => {
    const file = join(dir, 'empty.html');
    writeFileSync(file, renderReportHtml(syntheticReport(0)));
    const dom = await dumpDom(file);
    expect(/<body\b[^>]*>/.exec(dom)![0]).not.toContain('data-error');
    const found = plots(dom);
    expect(found).toHaveLength(PLOTS.length);
    for (const p of found) {
      expect(p.attrs).toContain('data-drawn="0"');
      expect(p.inner).toContain('no data');
    }
  });

  it('draws the offered load above the instances of an autoscaled run, each scale-up shaded', async () => {
    const report = syntheticReport(40);
    const autoscaler = autoscalerSection(
      {
        metric: 'queueDepth',
        initialInstances: 1,
        decisions: [{ atMs: 1000, value: 12, current: 1, ready: 1, recommended: 3, desired: 3, rule: 'hpa' }],
        lifecycle: [
          { instanceId: 'w-r0', type: 'register', atMs: 0 },
          { instanceId: 'w-r1', type: 'register', atMs: 2500 },
          { instanceId: 'w-r2', type: 'register', atMs: 2500 },
        ],
      },
      report.summary,
    );
    const file = join(dir, 'autoscaler.html');
    writeFileSync(file, renderReportHtml({ ...report, autoscaler }));
    const dom = await dumpDom(file);
    expect(/<body\b[^>]*>/.exec(dom)![0]).not.toContain('data-error');
    const found = plots(dom).filter((p) => p.name.startsWith('autoscaler-'));
    expect(found.map((p) => p.name)).toEqual(['autoscaler-arrivals', 'autoscaler-instances']);
    for (const p of found) {
      expect(p.attrs, p.name).toContain('data-bands="1"');
      expect(count(p.inner, 'path'), p.name).toBeGreaterThan(0);
    }
    // desired, ready, starting, draining.
    expect(found[1]!.attrs).toContain('data-drawn="4"');
  });

  it('draws the timeline of a chaos run with its fault windows', async () => {
    const file = join(dir, 'chaos.html');
    writeFileSync(file, renderReportHtml({ ...syntheticReport(40), tool: 'sluice chaos', chaos: SYNTHETIC_CHAOS }));
    const dom = await dumpDom(file);
    expect(/<body\b[^>]*>/.exec(dom)![0]).not.toContain('data-error');
    const chaos = plots(dom).filter((p) => p.name.startsWith('chaos-'));
    expect(chaos.map((p) => p.name)).toEqual(['chaos-throughput', 'chaos-ttft', 'chaos-outcomes']);
    for (const p of chaos) {
      expect(p.attrs, p.name).toContain('data-bands="2"');
      expect(count(p.inner, 'path'), p.name).toBeGreaterThan(0);
      expect(p.inner, p.name).toContain('kill worker-1');
    }
  });
});
