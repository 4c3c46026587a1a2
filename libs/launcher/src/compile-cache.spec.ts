import { getCompileCacheDir } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withCompileCache } from './compile-cache.js';

describe('withCompileCache', () => {
  it("turns the cache on in this process's directory, or Node's default one", () => {
    const env = withCompileCache({ PATH: '/bin' });
    expect(env).toEqual({ PATH: '/bin', NODE_COMPILE_CACHE: getCompileCacheDir() ?? join(tmpdir(), 'node-compile-cache') });
  });

  it("keeps the user's own directory, and keeps it off when the user turned it off", () => {
    expect(withCompileCache({ NODE_COMPILE_CACHE: '/cache' })).toEqual({ NODE_COMPILE_CACHE: '/cache' });
    expect(withCompileCache({ NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual({ NODE_DISABLE_COMPILE_CACHE: '1' });
  });
});
