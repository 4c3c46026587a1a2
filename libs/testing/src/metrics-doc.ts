import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@sluice/launcher';

export const METRICS_DOC = join(REPO_ROOT, 'docs', 'metrics.md');

/** One row of a metrics table in docs/metrics.md: `| \`name\` | type | labels | meaning |`. */
export interface DocumentedMetric {
  /** The `## heading`'s first word: the service (`gateway`, `worker`, …) or `all` for every service. */
  readonly section: string;
  readonly name: string;
  readonly type: string;
  /** Label names; `—` or empty means none. */
  readonly labels: readonly string[];
  /** A `prefix_*` row documents a group (prom-client's process_* and nodejs_*), not one family. */
  readonly prefix: boolean;
  /** Its meaning starts "disaggregated only": exposed only by a worker with `worker.roles` (vLLM's NIXL families). */
  readonly disaggregatedOnly: boolean;
}

/**
 * The metric tables of docs/metrics.md. Rows whose first cell is not a backticked name (the
 * header and its rule) are skipped; a first cell may hold several names (`\`a_*\`, \`b_*\``).
 */
export function readMetricsDoc(text = readFileSync(METRICS_DOC, 'utf8')): DocumentedMetric[] {
  const rows: DocumentedMetric[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    const heading = /^## (\S+)/.exec(line);
    if (heading) section = heading[1]!.toLowerCase();
    const cells = /^\|(.*)\|\s*$/.exec(line)?.[1]?.split('|').map((c) => c.trim());
    if (!cells || cells.length < 4) continue;
    const names = [...cells[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    if (names.length === 0) continue;
    const labels = cells[2]!
      .split(',')
      .map((l) => l.replace(/`/g, '').trim())
      .filter((l) => l !== '' && l !== '—');
    const disaggregatedOnly = /^disaggregated only\b/.test(cells[3]!);
    for (const name of names) rows.push({ section, name, type: cells[1]!, labels, prefix: name.endsWith('*'), disaggregatedOnly });
  }
  return rows;
}
