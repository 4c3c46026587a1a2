import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderTuneHtml } from './tune-html.js';
import type { TuneFile } from './tune-file.js';

export interface TuneOutputPaths {
  readonly json: string;
  readonly html: string;
}

/** tune.json and report.html in `dir` (created if missing). */
export function writeTuneOutputs(dir: string, tune: TuneFile): TuneOutputPaths {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'tune.json');
  const html = join(dir, 'report.html');
  writeFileSync(json, `${JSON.stringify(tune, null, 2)}\n`);
  writeFileSync(html, renderTuneHtml(tune));
  return { json, html };
}
