import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './repo-root.js';
import { SERVICE_NODE_FLAGS } from './service-node-flags.js';

/** The node flags of the image's entrypoint: what follows `exec node` up to the app's script. */
function entrypointNodeFlags(): string[] {
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const entrypoint = dockerfile.split('\n').find((line) => line.startsWith('ENTRYPOINT '));
  if (entrypoint === undefined) throw new Error('the Dockerfile has no ENTRYPOINT line');
  const m = /exec node ((?:--\S+ )*)\\"apps\/\$APP\/dist\/main\.js\\"/.exec(entrypoint);
  if (m === null) throw new Error(`the Dockerfile's ENTRYPOINT runs no "exec node [flags] apps/$APP/dist/main.js": ${entrypoint}`);
  return (m[1] ?? '').trim().split(' ').filter(Boolean);
}

describe('SERVICE_NODE_FLAGS', () => {
  it('are the V8 flags of the container image too, so a service runs alike under the launcher, compose and Kubernetes', () => {
    // --enable-source-maps is the image's alone: a production stack trace names the TypeScript line.
    expect(entrypointNodeFlags().filter((flag) => flag !== '--enable-source-maps')).toEqual([...SERVICE_NODE_FLAGS]);
  });

  it('size spaces but set no heap limit, which a load could make a service crash on', () => {
    for (const flag of SERVICE_NODE_FLAGS) expect(flag).not.toMatch(/^--max-old-space-size|^--max-heap-size/);
  });
});
