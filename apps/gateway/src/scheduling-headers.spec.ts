import { describe, expect, it } from 'vitest';
import { httpHeaders } from '@sluice/contracts';
import { HeaderTrust, priorityFor } from './scheduling-headers.js';

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

describe('priorityFor', () => {
  const objectives = new Map([
    ['premium', 10],
    ['bulk', -5],
  ]);

  it('takes the named objective’s priority; an unknown objective gets 0', () => {
    expect(priorityFor('premium', 'standard', objectives)).toBe(10);
    expect(priorityFor('bulk', 'critical', objectives)).toBe(-5);
    expect(priorityFor('gold', 'critical', objectives)).toBe(0);
  });

  it('without an objective, takes the SLO class’s priority', () => {
    expect(priorityFor(undefined, 'critical', objectives)).toBe(4);
    expect(priorityFor(undefined, 'standard', objectives)).toBe(3);
    expect(priorityFor(undefined, 'sheddable', objectives)).toBe(-2);
  });
});
