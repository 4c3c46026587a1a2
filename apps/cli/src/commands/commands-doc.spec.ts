import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@sluice/launcher';
import { markdownFiles, readLayoutCommands, readProcessTable, sluiceCommandMentions } from '@sluice/testing';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from './index.js';

const names = COMMANDS.map((c) => c.name);

/** The docs name the CLI's commands as `sluice help` lists them: a command added or renamed fails here. */
describe('the sluice commands in the docs', () => {
  it("are docs/architecture.md's process table row for sluice, in COMMANDS' order", () => {
    const row = readProcessTable().find((r) => r.process === 'sluice');
    expect(row?.owns, `docs/architecture.md:${row?.line}: the sluice row`).toEqual(names);
  });

  it("are README.md's Layout line for apps/cli", () => {
    const layout = readLayoutCommands();
    expect(layout?.value, `README.md:${layout?.line}: apps/cli in the Layout`).toEqual(names);
  });

  it('are the only ones a doc shows being run', () => {
    const unknown = markdownFiles(REPO_ROOT).flatMap((doc) =>
      sluiceCommandMentions(readFileSync(join(REPO_ROOT, doc), 'utf8'))
        .filter((m) => !names.includes(m.value))
        .map((m) => `${doc}:${m.line}: sluice ${m.value} is no command`),
    );
    expect(unknown).toEqual([]);
  });
});
