import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@sluice/launcher';

export const ARCHITECTURE_DOC = join(REPO_ROOT, 'docs', 'architecture.md');

/** A row of the process table under `## Processes`: `| process | app | owns | HTTP port (default) | scales by |`. */
export interface DocumentedProcess {
  /** As written, backticks removed: `gateway`, `flow-controller`, `sluice`. */
  readonly process: string;
  readonly app: string;
  /** The backticked words of the owns cell (for `sluice`, its commands). */
  readonly owns: readonly string[];
  /** The default HTTP port, or undefined for `—` (the CLI listens on none). */
  readonly port: number | undefined;
  /** Where the row is, for failure messages. */
  readonly line: number;
}

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** The process table of docs/architecture.md, from its `## Processes` heading to the next heading. */
export function readProcessTable(text = readFileSync(ARCHITECTURE_DOC, 'utf8')): DocumentedProcess[] {
  const rows: DocumentedProcess[] = [];
  let inSection = false;
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('#')) inSection = /^## Processes\s*$/.test(line);
    const cells = inSection ? /^\|(.*)\|\s*$/.exec(line)?.[1]?.split('|').map((c) => c.trim()) : undefined;
    // The header row and its rule have no backticked app.
    if (!cells || cells.length < 5 || !cells[1]!.startsWith('`')) return;
    const port = cells[3]!;
    rows.push({ process: cells[0]!.replace(/`/g, ''), app: cells[1]!.replace(/`/g, ''), owns: backticked(cells[2]!), port: port === '—' ? undefined : Number(port), line: i + 1 });
  });
  return rows;
}

/** What the doc says of each service's listening sockets: how many, and how deep each one's accept queue is. */
export interface DocumentedListening {
  /** As written: `32`, or a word such as `eight` (which no constant equals). */
  readonly sockets: string | undefined;
  /** The accept queue's depth, `4,096` read as 4096. */
  readonly backlog: number | undefined;
}

export function readListening(text = readFileSync(ARCHITECTURE_DOC, 'utf8')): DocumentedListening {
  const prose = text.replace(/\s+/g, ' ');
  const backlog = /The accept queue is ([\d,]+) deep/.exec(prose)?.[1];
  return {
    sockets: /Each service listens with (\S+) sockets/.exec(prose)?.[1],
    backlog: backlog === undefined ? undefined : Number(backlog.replaceAll(',', '')),
  };
}
