import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@sluice/launcher';

/**
 * The module boundaries are lint rules, so they must actually fire: a probe file is written into
 * a pure library and into an app, linted with the repo's own config, and removed.
 */
async function lintProbe(relativeDir: string, code: string): Promise<string[]> {
  const file = join(REPO_ROOT, relativeDir, `boundary-probe-${process.pid}.ts`);
  writeFileSync(file, code);
  try {
    const eslint = new ESLint({ cwd: REPO_ROOT });
    const [result] = await eslint.lintFiles([file]);
    return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
  } finally {
    rmSync(file, { force: true });
  }
}

describe('module boundaries', () => {
  it('keep NATS, Nest, I/O, timers and clocks out of pure libraries', async () => {
    const messages = await lintProbe(
      'libs/engine/src',
      [
        "import { connect } from '@nats-io/transport-node';",
        "import { Injectable } from '@nestjs/common';",
        "import { readFileSync } from 'node:fs';",
        "import { Bus } from '@sluice/bus';",
        'export const probe = [connect, Injectable, readFileSync, Bus, Date.now(), Math.random()];',
        'setTimeout(() => undefined, 1);',
      ].join('\n'),
    );
    const text = messages.join('\n');
    expect(text).toMatch(/no-restricted-imports: .*'@nats-io\/transport-node'/);
    expect(text).toMatch(/no-restricted-imports: .*'@nestjs\/common'/);
    expect(text).toMatch(/no-restricted-imports: .*'node:fs'/);
    expect(text).toMatch(/no-restricted-imports: .*'@sluice\/bus'/);
    expect(text).toMatch(/no-restricted-properties: .*Date\.now/);
    expect(text).toMatch(/no-restricted-properties: .*Math\.random/);
    expect(text).toMatch(/no-restricted-globals: .*setTimeout/);
  });

  it('let apps reach other packages only through their public entry, and never other apps', async () => {
    const messages = await lintProbe(
      'apps/router/src',
      [
        "import { subjects } from '@sluice/contracts/src/subjects.js';",
        "import { GatewayModule } from '../../gateway/src/gateway.module.js';",
        'export const probe = [subjects, GatewayModule];',
      ].join('\n'),
    );
    expect(messages.filter((m) => m.startsWith('no-restricted-imports'))).toHaveLength(2);
  });

  it('allow an app to import NATS and Nest', async () => {
    const messages = await lintProbe(
      'apps/router/src',
      "import { connect } from '@nats-io/transport-node';\nimport { Injectable } from '@nestjs/common';\nexport const probe = [connect, Injectable];\n",
    );
    expect(messages.filter((m) => m.startsWith('no-restricted-imports'))).toEqual([]);
  });
});
