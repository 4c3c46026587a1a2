import { describe, expect, it } from 'vitest';
import { PrefilledSchema, WorkerRoleSchema } from './disaggregation.js';
import { InstanceIdentitySchema } from './worker-events.js';

const identity = { instanceId: 'w1-r0', workerId: 'w1', rank: 0, model: 'm', totalKvBlocks: 8 };
const prefilled = { requestId: 'r1', attempt: 0, prefillInstanceId: 'w1-r0', decodeInstanceId: 'w2-r0', outcome: 'ok', atUs: 1 };

describe('disaggregation contracts', () => {
  it('takes the three roles and nothing else', () => {
    for (const role of ['both', 'prefill', 'decode']) expect(WorkerRoleSchema.parse(role)).toBe(role);
    expect(WorkerRoleSchema.safeParse('kv_producer').success).toBe(false);
  });

  it('keeps an identity without a role valid (an aggregated instance) and refuses an unknown role', () => {
    expect(InstanceIdentitySchema.parse(identity).role).toBeUndefined();
    expect(InstanceIdentitySchema.parse({ ...identity, role: 'decode' }).role).toBe('decode');
    expect(InstanceIdentitySchema.safeParse({ ...identity, role: 'router' }).success).toBe(false);
  });

  it('validates a prefill answer and refuses an unknown outcome or an instance id that is no subject token', () => {
    expect(PrefilledSchema.parse(prefilled)).toEqual(prefilled);
    expect(PrefilledSchema.safeParse({ ...prefilled, outcome: 'partial' }).success).toBe(false);
    expect(PrefilledSchema.safeParse({ ...prefilled, attempt: -1 }).success).toBe(false);
    expect(PrefilledSchema.safeParse({ ...prefilled, decodeInstanceId: 'a.b' }).success).toBe(false);
  });
});
