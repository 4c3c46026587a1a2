import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@sluice/launcher';

/**
 * The module boundaries are lint rules, so they must actually fire: a probe file is written into
 * a pure library, an app or another package, linted with the repo's own config, and removed.
 * The boundary rules read only the syntax (imports, globals, property names), so the probes are
 * linted without type information: building the TypeScript program for the first probe took
 * 7-12 s of this suite, and no rule under test uses it.
 */
const WITHOUT_TYPES: Linter.Config = {
  files: ['**/*.ts'],
  ...tseslint.configs.disableTypeChecked,
  languageOptions: { parserOptions: { projectService: false, program: null } },
};

async function lintProbe(relativeDir: string, code: string, { suffix = '.ts', override = [] }: { suffix?: string; override?: Linter.Config[] } = {}): Promise<string[]> {
  const file = join(REPO_ROOT, relativeDir, `boundary-probe-${process.pid}${suffix}`);
  writeFileSync(file, code);
  try {
    const eslint = new ESLint({ cwd: REPO_ROOT, overrideConfig: [WITHOUT_TYPES, ...override] });
    const [result] = await eslint.lintFiles([file]);
    return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
  } finally {
    rmSync(file, { force: true });
  }
}

const BOUNDARY_RULE = 'sluice/module-boundaries';
/** The messages of the tag rule alone (a pure library's probe also trips the purity rules). */
const boundaryErrors = (messages: string[]): string[] => messages.filter((m) => m.startsWith(`${BOUNDARY_RULE}:`));

/** An import of each package, and a use of it, so no other rule complains about the probe. */
function importing(...packages: string[]): string {
  const names = packages.map((_, i) => `m${i}`);
  return [...packages.map((p, i) => `import * as ${names[i]} from '${p}';`), `export const probe = [${names.join(', ')}];`, ''].join('\n');
}

/**
 * A library that exists only during this suite, because no stage library (`layer:stage`) exists
 * yet on every branch and an untagged package must be seen to fail: a package.json under libs/,
 * which is all the rule and Nx go by.
 */
function temporaryLibrary(kind: string, tags: string[] | undefined): { name: string; dir: string } {
  const dir = `libs/boundary-probe-${kind}-${process.pid}`;
  const name = `@sluice/boundary-probe-${kind}-${process.pid}`;
  mkdirSync(join(REPO_ROOT, dir, 'src'), { recursive: true });
  const manifest = { name, version: '0.0.0', private: true, type: 'module', ...(tags ? { nx: { tags } } : {}) };
  writeFileSync(join(REPO_ROOT, dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { name, dir };
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

  describe('by project tags', () => {
    let stage: { name: string; dir: string };
    let untagged: { name: string; dir: string };
    beforeAll(() => {
      stage = temporaryLibrary('stage', ['type:pure', 'layer:stage']);
      untagged = temporaryLibrary('untagged', undefined);
    });
    afterAll(() => {
      for (const lib of [stage, untagged]) if (lib) rmSync(join(REPO_ROOT, lib.dir), { recursive: true, force: true });
    });

    it('read the same projects and tags as Nx', () => {
      const out = mkdtempSync(join(tmpdir(), 'sluice-nx-graph-'));
      try {
        execFileSync('npx', ['nx', 'graph', `--file=${join(out, 'graph.json')}`], { cwd: REPO_ROOT, env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' }, stdio: 'pipe' });
        const { graph } = JSON.parse(readFileSync(join(out, 'graph.json'), 'utf8')) as { graph: { nodes: Record<string, { data: { root: string; tags: string[] } }> } };
        const fromNx = Object.fromEntries(Object.entries(graph.nodes).map(([name, { data }]) => [name, { root: data.root, tags: data.tags.filter((t) => !t.startsWith('npm:')) }]));
        // Every workspace package is tagged (the two temporary ones aside), with one type.
        for (const [name, { tags }] of Object.entries(fromNx)) {
          if (name === stage.name || name === untagged.name) continue;
          expect(tags.filter((t) => t.startsWith('type:')), name).toHaveLength(1);
        }
        expect(fromNx[stage.name]).toEqual({ root: stage.dir, tags: ['type:pure', 'layer:stage'] });
        expect(fromNx['@sluice/engine']).toEqual({ root: 'libs/engine', tags: ['type:pure', 'layer:model'] });
        expect(fromNx['@sluice/app-cli']).toEqual({ root: 'apps/cli', tags: ['type:app'] });
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });

    it('keep base libraries to base', async () => {
      expect(boundaryErrors(await lintProbe('libs/contracts/src', importing('@sluice/collections')))).toEqual([]);
      expect(boundaryErrors(await lintProbe('libs/contracts/src', importing('@sluice/engine')))).toEqual([
        expect.stringMatching(/@sluice\/contracts \(layer:base\) may import only packages tagged "layer:base"; @sluice\/engine has/),
      ]);
    });

    it('keep model libraries on base, below the stages', async () => {
      expect(boundaryErrors(await lintProbe('libs/engine/src', importing('@sluice/collections', '@sluice/contracts')))).toEqual([]);
      const errors = boundaryErrors(await lintProbe('libs/engine/src', importing(stage.name, '@sluice/policies')));
      expect(errors).toHaveLength(2);
      expect(errors[0]).toMatch(new RegExp(`\\(layer:model\\) may import only packages tagged "layer:base"; ${stage.name} has "type:pure", "layer:stage"`));
      expect(errors[1]).toMatch(/\(layer:model\) .* @sluice\/policies has/);
    });

    it('let a stage library use base and model, and nothing with I/O or above it', async () => {
      expect(boundaryErrors(await lintProbe(`${stage.dir}/src`, importing('@sluice/contracts', '@sluice/policies', '@sluice/engine')))).toEqual([]);
      const errors = boundaryErrors(await lintProbe(`${stage.dir}/src`, importing('@sluice/config', '@sluice/twin')));
      expect(errors).toEqual([expect.stringMatching(/\(layer:stage\) .* @sluice\/config has "type:io", "layer:infra"/), expect.stringMatching(/\(layer:stage\) .* @sluice\/twin has .*"layer:sim"/)]);
    });

    it('let the twin use the stages and the model, not the infrastructure', async () => {
      expect(boundaryErrors(await lintProbe('libs/twin/src', importing(stage.name, '@sluice/engine', '@sluice/contracts')))).toEqual([]);
      expect(boundaryErrors(await lintProbe('libs/twin/src', importing('@sluice/bus')))).toEqual([expect.stringMatching(/@sluice\/twin \(layer:sim\) .* @sluice\/bus has "type:io", "layer:infra"/)]);
    });

    it('let infrastructure use base, model and infrastructure, not the twin or the stages', async () => {
      expect(boundaryErrors(await lintProbe('libs/bus/src', importing('@sluice/config', '@sluice/engine', '@sluice/contracts')))).toEqual([]);
      expect(boundaryErrors(await lintProbe('libs/bus/src', importing('@sluice/twin', stage.name)))).toHaveLength(2);
    });

    it('never let a library import an app, the test library included', async () => {
      expect(boundaryErrors(await lintProbe('libs/config/src', importing('@sluice/app-gateway')))).toEqual([expect.stringMatching(/@sluice\/config \(layer:infra\) .* @sluice\/app-gateway has "type:app"/)]);
      expect(boundaryErrors(await lintProbe('libs/testing/src', importing('@sluice/bus', '@sluice/twin')))).toEqual([]);
      expect(boundaryErrors(await lintProbe('libs/testing/src', importing('@sluice/app-cli')))).toEqual([
        expect.stringMatching(/@sluice\/testing \(type:test\) may not import packages tagged "type:app", such as @sluice\/app-cli/),
      ]);
    });

    it('never let an app import an app, nor ship code that imports the test library', async () => {
      expect(boundaryErrors(await lintProbe('apps/router/src', importing('@sluice/app-gateway')))).toEqual([expect.stringMatching(/@sluice\/app-router \(type:app\) may not import packages tagged "type:app"/)]);
      expect(boundaryErrors(await lintProbe('apps/router/src', importing('@sluice/testing')))).toEqual([expect.stringMatching(/@sluice\/app-router \(type:app\) may not import packages tagged "type:test", such as @sluice\/testing/)]);
      expect(boundaryErrors(await lintProbe('apps/router/src', importing('@sluice/twin', '@sluice/bus', '@sluice/config')))).toEqual([]);
      // The app's tests may use the test library.
      for (const suffix of ['.spec.ts', '.int-spec.ts', '.container-spec.ts', '.timing-spec.ts']) {
        expect(boundaryErrors(await lintProbe('apps/router/src', importing('@sluice/testing'), { suffix })), suffix).toEqual([]);
      }
    });

    it('refuse imports from a package that has no tags', async () => {
      expect(boundaryErrors(await lintProbe(`${untagged.dir}/src`, importing('@sluice/contracts')))).toEqual([expect.stringMatching(new RegExp(`${untagged.name} has no tags: add "nx"`))]);
      expect(boundaryErrors(await lintProbe('libs/config/src', importing(untagged.name)))).toEqual([expect.stringMatching(/may import only packages tagged .*; @sluice\/boundary-probe-untagged-\d+ has no tags/)]);
    });

    it('excuse only the listed known violations, and report one that no longer occurs', async () => {
      const probe = relative(REPO_ROOT, join(REPO_ROOT, 'libs/engine/src', `boundary-probe-${process.pid}.ts`));
      const override: Linter.Config[] = [
        {
          files: [probe],
          rules: {
            [BOUNDARY_RULE]: [
              'error',
              {
                constraints: [{ sourceTag: 'layer:model', onlyDependOnLibsWithTags: ['layer:base'] }],
                knownViolations: [
                  { file: probe, imports: '@sluice/bus', reason: 'probe' },
                  { file: probe, imports: '@sluice/telemetry', reason: 'gone' },
                ],
              },
            ],
          },
        },
      ];
      const errors = boundaryErrors(await lintProbe('libs/engine/src', importing('@sluice/bus', '@sluice/config'), { override }));
      expect(errors).toHaveLength(2);
      expect(errors).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/@sluice\/engine \(layer:model\) .* @sluice\/config has/),
          expect.stringMatching(/the known violation "@sluice\/telemetry" \(gone\) no longer occurs in this file/),
        ]),
      );
    });
  });
});
