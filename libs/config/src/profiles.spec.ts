import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { loadProfile } from './profiles.js';

describe('loadProfile and the latency model a profile selects', () => {
  it('loads the built-in qwen3-14b-trained-physics profile', () => {
    expect(loadProfile(loadConfig({ argv: ['--worker.profile=qwen3-14b-trained-physics'] }))).toMatchObject({ latencyModel: 'trained-physics', trainedPhysics: { hardware: { tflopsPeak: 989.5 } } });
  });

  it('refuses at start-up a profile that selects trained-physics without its coefficients, naming the file and the key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-profiles-'));
    writeFileSync(join(dir, 'bare.yaml'), 'name: bare\ngpu: H100\ntp: 1\nlatencyModel: trained-physics\nalpha: [1, 0, 0]\nbeta: [1, 1, 1]\ntotalKvBlocks: 100\n');
    const config = loadConfig({ argv: [`--worker.profilesDir=${dir}`, '--worker.profile=bare'] });
    expect(() => loadProfile(config)).toThrow(/bare\.yaml: trainedPhysics: latencyModel trained-physics needs its coefficients/);
  });
});
