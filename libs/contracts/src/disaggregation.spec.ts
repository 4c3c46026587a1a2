import { describe, expect, it } from 'vitest';
import { KvTransferEventSchema, WorkerRoleSchema } from './disaggregation.js';
import { InstanceIdentitySchema } from './worker-events.js';

const identity = { instanceId: 'w1-r0', workerId: 'w1', rank: 0, model: 'm', totalKvBlocks: 8 };
const transfer = { type: 'started', requestId: 'r1', prefillInstanceId: 'w1-r0', decodeInstanceId: 'w2-r0', blocks: 3, bytes: 3 * 65_536, atUs: 1 };

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

  it('validates a transfer event and bounds its counts', () => {
    expect(KvTransferEventSchema.parse(transfer)).toEqual(transfer);
    expect(KvTransferEventSchema.safeParse({ ...transfer, type: 'paused' }).success).toBe(false);
    expect(KvTransferEventSchema.safeParse({ ...transfer, blocks: -1 }).success).toBe(false);
    expect(KvTransferEventSchema.safeParse({ ...transfer, bytes: 1.5 }).success).toBe(false);
    expect(KvTransferEventSchema.safeParse({ ...transfer, decodeInstanceId: 'a.b' }).success).toBe(false);
  });
});
