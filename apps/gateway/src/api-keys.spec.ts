import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiKeys, hashApiKey } from './api-keys.js';

const entry = (id: string, key: string, extra: object = {}) => ({ id, hash: hashApiKey(key), tenant: `${id}-tenant`, admin: false, metrics: false, ...extra });

describe('hashApiKey', () => {
  it('is "sha256:" and the hex SHA-256 of the key, as `printf %s KEY | sha256sum` prints it', () => {
    expect(hashApiKey('sk-test')).toBe(`sha256:${createHash('sha256').update('sk-test').digest('hex')}`);
    expect(hashApiKey('sk-test')).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('ApiKeys', () => {
  const keys = new ApiKeys({ keys: [entry('a', 'sk-aaaa'), entry('b', 'sk-aaab', { sloClass: 'batch', admin: true })] });

  it('is off without gateway.auth', () => {
    expect(new ApiKeys(undefined).enabled).toBe(false);
    expect(keys.enabled).toBe(true);
  });

  it('finds the key a Bearer header names, with its defaults', () => {
    expect(keys.authenticate('Bearer sk-aaaa')).toEqual({ ok: true, key: { id: 'a', fairnessId: 'a-tenant', objective: undefined, sloClass: 'standard', sloTtftMs: undefined, rateLimit: undefined, admin: false, metrics: false } });
    expect(keys.authenticate('bearer  sk-aaab ')).toMatchObject({ ok: true, key: { id: 'b', sloClass: 'batch', admin: true, metrics: true } });
  });

  it('refuses what names no key, in OpenAI\'s words', () => {
    for (const header of [undefined, '', 'sk-aaaa', 'Basic sk-aaaa', 'Bearer', 'Bearer sk-aaaa sk-aaab']) {
      expect(keys.authenticate(header)).toEqual({ ok: false, message: expect.stringMatching(/^You didn't provide an API key/) });
    }
    for (const header of ['Bearer sk-aaa', 'Bearer sk-aaaaa', `Bearer ${hashApiKey('sk-aaaa')}`]) {
      expect(keys.authenticate(header)).toEqual({ ok: false, message: expect.stringMatching(/^Incorrect API key provided/) });
    }
  });
});
