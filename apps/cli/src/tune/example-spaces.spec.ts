import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@sluice/launcher';
import { configProblems } from './config-checks.js';
import { readSpace } from './read-space.js';

const DIR = join(REPO_ROOT, 'examples', 'tune');

/** Every shipped space reads, names a workload that exists, and passes the checks `sluice tune` makes before its first trial. */
describe.each(readdirSync(DIR).filter((f) => f.endsWith('.yaml')))('examples/tune/%s', (file) => {
  it('is a valid space whose parameters all take effect', () => {
    const space = readSpace(join(DIR, file));
    expect(existsSync(space.workloadFile), space.workloadFile).toBe(true);
    expect(configProblems(space.baseArgs, space.params, {})).toEqual([]);
  });
});
