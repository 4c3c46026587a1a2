import { describe, expect, it } from 'vitest';
import { moreSpecificPattern, subjectMatches } from './subject-matching.js';

describe('subjectMatches (NATS wildcards)', () => {
  it('matches exact subjects token by token', () => {
    expect(subjectMatches('a.b.c', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.b.c', 'a.b')).toBe(false);
    expect(subjectMatches('a.b', 'a.b.c')).toBe(false);
    expect(subjectMatches('a.b.c', 'a.b.x')).toBe(false);
  });

  it('* stands for exactly one token', () => {
    expect(subjectMatches('a.*.c', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.*', 'a.b')).toBe(true);
    expect(subjectMatches('a.*', 'a')).toBe(false);
    expect(subjectMatches('a.*', 'a.b.c')).toBe(false);
    expect(subjectMatches('*', 'a')).toBe(true);
  });

  it('> stands for one or more trailing tokens', () => {
    expect(subjectMatches('a.>', 'a.b')).toBe(true);
    expect(subjectMatches('a.>', 'a.b.c.d')).toBe(true);
    expect(subjectMatches('a.>', 'a')).toBe(false);
    expect(subjectMatches('>', 'a.b')).toBe(true);
    expect(subjectMatches('a.*.>', 'a.b')).toBe(false);
    expect(subjectMatches('a.*.>', 'a.b.c')).toBe(true);
  });
});

describe('moreSpecificPattern', () => {
  it('ranks token by token from the left: a literal beats *, which beats >', () => {
    expect(moreSpecificPattern('a.b.c', 'a.*.c')).toBe(true);
    expect(moreSpecificPattern('a.*.c', 'a.b.c')).toBe(false);
    expect(moreSpecificPattern('a.*', 'a.>')).toBe(true);
    expect(moreSpecificPattern('a.>', 'a.*')).toBe(false);
    expect(moreSpecificPattern('a.b', 'a.b')).toBe(false);
  });
});
