import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@sluice/launcher';

export const README_DOC = join(REPO_ROOT, 'README.md');

const readme = () => readFileSync(README_DOC, 'utf8');

/** Something the README says, with the line it says it on (1-based), for failure messages. */
export interface OnLine<T> {
  readonly value: T;
  readonly line: number;
}

/** The commands of the Layout's `apps/cli  \`sluice\`: up, run, …` line; undefined if there is no such line. */
export function readLayoutCommands(text = readme()): OnLine<string[]> | undefined {
  const lines = text.split('\n');
  const i = lines.findIndex((line) => /^apps\/cli\s+`sluice`:/.test(line));
  if (i < 0) return undefined;
  const list = lines[i]!.slice(lines[i]!.indexOf(':') + 1);
  return { value: list.split(',').map((c) => c.trim()), line: i + 1 };
}

/** Every `sluice <command>` a doc shows being run: `npx sluice run …` or `` `sluice run …` ``. */
export function sluiceCommandMentions(text: string): OnLine<string>[] {
  return text.split('\n').flatMap((line, i) => [...line.matchAll(/(?:npx sluice|`sluice) ([a-z][a-z-]*)/g)].map((m) => ({ value: m[1]!, line: i + 1 })));
}

/** The example `sluice.yaml`: the first fenced yaml block under `## Configure`. */
export function readConfigExample(text = readme()): OnLine<string> | undefined {
  const lines = text.split('\n');
  const section = lines.findIndex((line) => /^## Configure\s*$/.test(line));
  if (section < 0) return undefined;
  const open = lines.findIndex((line, i) => i > section && line.trim() === '```yaml');
  const close = lines.findIndex((line, i) => i > open && line.trim() === '```');
  if (open < 0 || close < 0) return undefined;
  return { value: lines.slice(open + 1, close).join('\n'), line: open + 2 };
}

/** Each ``port `section.port`, 9102 by default`` the README states. */
export function readDefaultPorts(text = readme()): OnLine<{ section: string; port: number }>[] {
  const prose = text.split('\n');
  return prose.flatMap((line, i) => [...line.matchAll(/`(\w+)\.port`, (\d+) by default/g)].map((m) => ({ value: { section: m[1]!, port: Number(m[2]) }, line: i + 1 })));
}
