import { describe, expect, it } from 'vitest';
import { ConfigError } from '@sluice/config';
import { FALLBACK_MAX_CONNECTIONS, connectionCapOf, fdReserveOf, softOpenFileLimit } from './http-connection-cap.js';

const limits = (maxConnections: number | 'auto', maxConnectionsPerClient = 4_096) => ({ maxBodyBytes: 1_048_576, maxPromptTokens: 0, maxTokens: 0, maxStreamDurationMs: 0, maxConnections, maxConnectionsPerClient });

const PROC_LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             63459                63459                processes
Max open files            20000                20000                files
Max locked memory         8388608              8388608              bytes
`;

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('the gateway connection cap', () => {
  it('reads the soft open-file limit where Linux says it, and nothing elsewhere', () => {
    expect(softOpenFileLimit(() => PROC_LIMITS)).toBe(20_000);
    expect(softOpenFileLimit(() => PROC_LIMITS.replace('20000                20000', 'unlimited            unlimited'))).toBeUndefined();
    expect(
      softOpenFileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
  });

  it('keeps a tenth of the descriptors, at least 256, out of auto', () => {
    expect(fdReserveOf(20_000)).toBe(2_000);
    expect(fdReserveOf(1_024)).toBe(256);
    expect(connectionCapOf(limits('auto'), 20_000)).toBe(18_000);
    expect(connectionCapOf(limits('auto'), 1_024)).toBe(768);
    expect(connectionCapOf(limits('auto'), undefined)).toBe(FALLBACK_MAX_CONNECTIONS);
  });

  it('three addresses at the default per-client cap stay under the auto cap of a 20 000-file process (the flood that reset every client)', () => {
    expect(3 * 4_096).toBeLessThan(connectionCapOf(limits('auto'), 20_000));
  });

  it('takes a number under the limit, and refuses one the open-file limit would pre-empt, naming the key', () => {
    expect(connectionCapOf(limits(10_000), 20_000)).toBe(10_000);
    expect(problemsOf(() => connectionCapOf(limits(19_000), 20_000))).toEqual([expect.stringMatching(/^gateway\.limits\.maxConnections: 19000 cannot take effect: .*20000 files .* at most 18000/)]);
  });

  it('refuses a per-client cap above a configured global cap, which could never bind', () => {
    expect(problemsOf(() => connectionCapOf(limits(1_000, 2_000), 20_000))).toEqual([expect.stringMatching(/^gateway\.limits\.maxConnectionsPerClient: 2000 is above the gateway's cap of 1000/)]);
    expect(connectionCapOf(limits(1_000, 0), 20_000)).toBe(1_000);
  });
});
