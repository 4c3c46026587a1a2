import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeZodError, formatFieldIssue, issuePath, zodFieldIssues } from './zod-errors.js';

const Schema = z.strictObject({
  name: z.string(),
  mode: z.enum(['fast', 'slow']),
  unit: z.literal('ms'),
  limits: z.strictObject({ max: z.number().positive() }),
  shape: z.discriminatedUnion('type', [z.strictObject({ type: z.literal('line') }), z.strictObject({ type: z.literal('dot') })]),
  items: z.array(z.number()),
});

const errorOf = (input: unknown): z.ZodError => {
  const result = Schema.safeParse(input);
  if (result.success) throw new Error('expected the input to fail');
  return result.error;
};

const VALID = { name: 'a', mode: 'fast', unit: 'ms', limits: { max: 1 }, shape: { type: 'dot' }, items: [1] };

describe('issuePath and formatFieldIssue', () => {
  it('write a key path as the config and workload docs do, and the place before the problem', () => {
    expect(issuePath(['clients', 1, 'arrival', 'cv'])).toBe('clients[1].arrival.cv');
    expect(formatFieldIssue({ path: 'a.b', message: 'must be > 0' })).toBe('a.b: must be > 0');
    expect(formatFieldIssue({ path: ['queue-depth'], message: 'is given twice' })).toBe('queue-depth: is given twice');
    expect(formatFieldIssue({ path: [], message: 'needs one positive weight' })).toBe('needs one positive weight');
  });
});

describe('describeZodError without the input', () => {
  it('keeps zod’s message and names the path, under a root when given', () => {
    const lines = describeZodError(errorOf({ ...VALID, limits: { max: -1 } }), 'params');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^params\.limits\.max: .*>0/);
    expect(describeZodError(errorOf({ ...VALID, limits: { max: -1 } }), { root: 'params' })).toEqual(lines);
  });
});

describe('zodFieldIssues against the input', () => {
  it('says a missing key is required, with the allowed values where the schema lists them', () => {
    const { mode: _mode, shape: _shape, name: _name, ...rest } = VALID;
    expect(zodFieldIssues(errorOf(rest), { input: rest })).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'mode', message: 'is required (one of fast | slow)' },
      { path: 'shape', message: 'is required' },
    ]);
  });

  it('names each unknown key, and what a wrong value must be', () => {
    const input = { ...VALID, extra: 1, mode: 'medium', unit: 's', shape: { type: 'box' }, items: 'x', limits: { max: 1, min: 0 } };
    expect(zodFieldIssues(errorOf(input), { input, root: 'doc' })).toEqual([
      { path: 'doc.mode', message: 'must be one of fast | slow' },
      { path: 'doc.unit', message: 'must be ms' },
      { path: 'doc.limits.min', message: 'unknown key' },
      { path: 'doc.shape.type', message: 'must be one of line | dot' },
      { path: 'doc.items', message: 'must be a list' },
      { path: 'doc.extra', message: 'unknown key' },
    ]);
  });

  it('says what the whole document must be when it is not one', () => {
    expect(describeZodError(errorOf(null), { input: null })).toEqual(['must be an object']);
    expect(describeZodError(errorOf(undefined), { input: undefined })).toEqual(['is required']);
  });
});
