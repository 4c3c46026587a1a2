import { describe, expect, it } from 'vitest';
import { httpHeaders } from '@sluice/contracts';
import { HeaderTrust } from './scheduling-headers.js';

describe('HeaderTrust', () => {
  const trust = new HeaderTrust(['127.0.0.1/32', '10.0.0.0/8', '::1/128', '192.168.1.7']);

  it('trusts addresses inside the ranges, IPv4-mapped IPv6 included, and nothing else', () => {
    expect(trust.trusts('127.0.0.1')).toBe(true);
    expect(trust.trusts('10.20.30.40')).toBe(true);
    expect(trust.trusts('::ffff:10.1.2.3')).toBe(true);
    expect(trust.trusts('::1')).toBe(true);
    expect(trust.trusts('192.168.1.7')).toBe(true);
    expect(trust.trusts('127.0.0.2')).toBe(false);
    expect(trust.trusts('192.168.1.8')).toBe(false);
    expect(trust.trusts('2001:db8::1')).toBe(false);
    expect(trust.trusts(undefined)).toBe(false);
  });

  it('strips every scheduling header from an untrusted client and keeps the rest', () => {
    const headers = {
      [httpHeaders.fairnessId]: 'tenant-a',
      [httpHeaders.objective]: 'premium',
      [httpHeaders.sloClass]: 'critical',
      [httpHeaders.sloTtftMs]: '100',
      'content-type': 'application/json',
    };
    expect(trust.filter(headers, '203.0.113.9')).toEqual({ headers: { 'content-type': 'application/json' }, stripped: true });
    expect(trust.filter(headers, '10.0.0.1')).toEqual({ headers, stripped: false });
    expect(trust.filter({ 'content-type': 'application/json' }, '203.0.113.9').stripped).toBe(false);
  });
});
