import { describe, expect, it } from 'vitest';
import { WORKER_ROLES, servesDecode, servesPrefill } from './worker-role.js';

describe('worker roles', () => {
  it('lets `both` serve either phase, and each dedicated role only its own', () => {
    const table = WORKER_ROLES.map((role) => [role, servesPrefill(role), servesDecode(role)]);
    expect(table).toEqual([
      ['both', true, true],
      ['prefill', true, false],
      ['decode', false, true],
    ]);
  });
});
