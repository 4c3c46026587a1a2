import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.error.js';
import { loadConfig } from './load-config.js';

/** gateway.auth and gateway.limits: defaults, good values, and bad ones refused at start-up naming the key. */

const dir = mkdtempSync(join(tmpdir(), 'sluice-gateway-config-'));
let files = 0;

/** A config document as a file (JSON is YAML), as a user would write it. */
function load(doc: unknown) {
  const file = join(dir, `sluice-${files++}.yaml`);
  writeFileSync(file, JSON.stringify(doc));
  return loadConfig({ file });
}

function problemsOf(doc: unknown): string[] {
  try {
    load(doc);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

const HASH = `sha256:${'ab'.repeat(32)}`;
const KEY = { id: 'team-a', hash: HASH, tenant: 'tenant-a' };

describe('gateway.limits and gateway.headersTimeoutMs', () => {
  it('have safe defaults', () => {
    const { gateway } = loadConfig({});
    expect(gateway.limits).toEqual({ maxBodyBytes: 1_048_576, maxPromptTokens: 32_768, maxTokens: 8_192, maxStreamDurationMs: 300_000, maxConnectionsPerClient: 4_096, maxConnections: 'auto' });
    expect(gateway.keepAliveTimeoutMs).toBe(65_000);
    expect(gateway.admin).toEqual({ allowedHosts: [], allowedOrigins: [] });
    expect(gateway.headersTimeoutMs).toBe(10_000);
    expect(gateway.auth).toBeUndefined();
  });

  it('take the connection cap as auto or a count, and the allowed admin hosts and origins normalized', () => {
    expect(load({ gateway: { limits: { maxConnections: 5_000 } } }).gateway.limits.maxConnections).toBe(5_000);
    const { admin } = load({ gateway: { admin: { allowedHosts: ['Gateway.Internal'], allowedOrigins: ['HTTPS://Grafana.Internal:3000/'] } } }).gateway;
    expect(admin).toEqual({ allowedHosts: ['gateway.internal'], allowedOrigins: ['https://grafana.internal:3000'] });
  });

  it.each([
    ['a host with a port', { admin: { allowedHosts: ['gateway:8080'] } }, /^gateway\.admin\.allowedHosts\[0\]: must be a host name without scheme, port or wildcard/],
    ['a wildcard host', { admin: { allowedHosts: ['*.example.com'] } }, /^gateway\.admin\.allowedHosts\[0\]: /],
    ['an origin with a path', { admin: { allowedOrigins: ['https://grafana.internal/d/x'] } }, /^gateway\.admin\.allowedOrigins\[0\]: .* is not an origin/],
    ['an origin of another scheme', { admin: { allowedOrigins: ['file:///x'] } }, /^gateway\.admin\.allowedOrigins\[0\]: /],
    ['a connection cap of 0', { limits: { maxConnections: 0 } }, /^gateway\.limits\.maxConnections: must be "auto" or a whole number of at least 1/],
    ['an idle keep-alive under a second', { keepAliveTimeoutMs: 500 }, /^gateway\.keepAliveTimeoutMs: must be at least 1000/],
  ])('refuse %s, naming the key', (_, gateway, message) => {
    const problems = problemsOf({ gateway });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('take a body size as a quantity', () => {
    expect(load({ gateway: { limits: { maxBodyBytes: '256Ki' } } }).gateway.limits.maxBodyBytes).toBe(262_144);
  });
});

describe('gateway.auth', () => {
  it('reads keys with their defaults: standard SLO class, no admin, a burst of one second', () => {
    const config = load({ inferenceObjectives: [{ name: 'premium', priority: 10 }], gateway: { auth: { keys: [{ ...KEY, hash: HASH.toUpperCase().replace('SHA256', 'sha256'), objective: 'premium', rateLimit: { requestsPerSecond: 2.5 } }] } } });
    expect(config.gateway.auth?.keys[0]).toEqual({ ...KEY, objective: 'premium', rateLimit: { requestsPerSecond: 2.5, burst: 3 }, admin: false, metrics: false });
  });

  it.each([
    ['a key in clear', { keys: [{ ...KEY, hash: 'sk-my-secret-key' }] }, /^gateway\.auth\.keys\[0\]\.hash: must be "sha256:" and the 64 hex digits of the key's SHA-256, never the key itself/],
    ['no keys', { keys: [] }, /^gateway\.auth\.keys: needs at least one key \(leave gateway\.auth out to turn keys off\)/],
    ['an id twice', { keys: [KEY, { ...KEY, hash: `sha256:${'cd'.repeat(32)}` }] }, /^gateway\.auth\.keys\[1\]\.id: key id "team-a" is listed twice/],
    ['a key twice', { keys: [KEY, { ...KEY, id: 'team-b' }] }, /^gateway\.auth\.keys\[1\]\.hash: the same key is listed twice/],
    ['a tenant a label cannot carry', { keys: [{ ...KEY, tenant: 'a b' }] }, /^gateway\.auth\.keys\[0\]\.tenant: must be 1 to 64 letters, digits, "_" or "-"/],
    ['an objective not configured', { keys: [{ ...KEY, objective: 'gold' }] }, /^gateway\.auth\.keys\[0\]\.objective: "gold" is not a configured objective; none are configured/],
    ['an unknown key', { keys: [{ ...KEY, tennant: 'x' }] }, /^gateway\.auth\.keys\[0\]: .*tennant/],
  ])('refuses %s, naming the key', (_, auth, message) => {
    const problems = problemsOf({ gateway: { auth } });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });
});

/** A value that no numeric setting takes: wrong type, fraction, negative, not finite (JSON writes those as null). */
const notACount = fc.oneof(
  fc.string().filter((s) => !/^\s*[0-9]/.test(s)),
  fc.boolean(),
  fc.constant(null),
  fc.integer({ max: -1 }),
  fc.double({ noInteger: true }),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);

/** Each setting, how to put a value there, and values it must refuse. */
const SETTINGS: { path: string; at: (value: unknown) => unknown; bad: fc.Arbitrary<unknown> }[] = [
  ...(['maxPromptTokens', 'maxTokens', 'maxStreamDurationMs', 'maxConnectionsPerClient'] as const).map((name) => ({
    path: `gateway.limits.${name}`,
    at: (value: unknown) => ({ gateway: { limits: { [name]: value } } }),
    bad: notACount,
  })),
  {
    path: 'gateway.limits.maxBodyBytes',
    at: (value) => ({ gateway: { limits: { maxBodyBytes: value } } }),
    bad: fc.oneof(notACount, fc.integer({ min: 0, max: 1_023 }), fc.integer({ min: 2 ** 30 + 1 }), fc.constantFrom('1Ti', '10Gi', '-1Mi', 'lots', '1.5.2k')),
  },
  { path: 'gateway.headersTimeoutMs', at: (value) => ({ gateway: { headersTimeoutMs: value } }), bad: fc.oneof(notACount, fc.constant(0)) },
  { path: 'gateway.auth.keys[0].hash', at: (value) => ({ gateway: { auth: { keys: [{ ...KEY, hash: value }] } } }), bad: fc.oneof(notACount, fc.string().filter((s) => !/^sha256:[0-9a-f]{64}$/i.test(s)), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 })) },
  ...(['id', 'tenant', 'objective'] as const).map((name) => ({
    path: `gateway.auth.keys[0].${name}`,
    at: (value: unknown) => ({ gateway: { auth: { keys: [{ ...KEY, [name]: value }] } } }),
    bad: fc.oneof(notACount, fc.string({ maxLength: 80 })).filter((v) => typeof v !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(v)),
  })),
  { path: 'gateway.auth.keys[0].sloClass', at: (value) => ({ gateway: { auth: { keys: [{ ...KEY, sloClass: value }] } } }), bad: fc.oneof(notACount, fc.string()).filter((v) => !['critical', 'standard', 'batch', 'sheddable', 'background'].includes(v as string)) },
  { path: 'gateway.auth.keys[0].sloTtftMs', at: (value) => ({ gateway: { auth: { keys: [{ ...KEY, sloTtftMs: value }] } } }), bad: fc.oneof(notACount.filter((v) => typeof v !== 'number'), fc.constant(0), fc.integer({ max: 0 }), fc.double({ min: 3_600_001, noNaN: true })) },
  ...(['admin', 'metrics'] as const).map((name) => ({
    path: `gateway.auth.keys[0].${name}`,
    at: (value: unknown) => ({ gateway: { auth: { keys: [{ ...KEY, [name]: value }] } } }),
    bad: notACount.filter((v) => typeof v !== 'boolean'),
  })),
  { path: 'gateway.keepAliveTimeoutMs', at: (value) => ({ gateway: { keepAliveTimeoutMs: value } }), bad: fc.oneof(notACount, fc.integer({ min: 0, max: 999 }), fc.integer({ min: 600_001 })) },
  { path: 'gateway.limits.maxConnections', at: (value) => ({ gateway: { limits: { maxConnections: value } } }), bad: fc.oneof(notACount.filter((v) => v !== 'auto'), fc.constant(0)) },
  {
    path: 'gateway.auth.keys[0].rateLimit.requestsPerSecond',
    at: (value) => ({ gateway: { auth: { keys: [{ ...KEY, rateLimit: { requestsPerSecond: value } }] } } }),
    bad: fc.oneof(notACount.filter((v) => typeof v !== 'number' || v <= 0), fc.constant(0), fc.double({ min: 1_000_001, noNaN: true })),
  },
  {
    path: 'gateway.auth.keys[0].rateLimit.burst',
    at: (value) => ({ gateway: { auth: { keys: [{ ...KEY, rateLimit: { requestsPerSecond: 1, burst: value } }] } } }),
    bad: fc.oneof(notACount, fc.constant(0)),
  },
];

describe('bad values for gateway.auth and gateway.limits (fuzzed)', () => {
  it('stop start-up with one problem naming the key', () => {
    const cases = fc.oneof(...SETTINGS.map((setting) => setting.bad.map((value) => ({ setting, value }))));
    fc.assert(
      fc.property(cases, ({ setting, value }) => {
        const problems = problemsOf(setting.at(value));
        expect(problems.length, JSON.stringify(value)).toBeGreaterThan(0);
        for (const problem of problems) expect(problem.startsWith(`${setting.path}:`) || problem.startsWith(`${setting.path}[`), `${problem} (value ${JSON.stringify(value)})`).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });
});
