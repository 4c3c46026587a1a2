import { WIRE_WORKER_ROLES } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { WORKER_ROLES } from './worker-role.js';

describe('worker roles on the wire', () => {
  it('spells the same roles as the engine, so a registered role always maps to one the engine knows', () => {
    expect([...WIRE_WORKER_ROLES].sort()).toEqual([...WORKER_ROLES].sort());
  });
});
