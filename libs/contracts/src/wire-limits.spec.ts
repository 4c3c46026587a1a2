import { describe, expect, it } from 'vitest';
import { EXAMPLE_INFERENCE_REQUEST } from './example-messages.js';
import { InboxFrameSchema, TOKENS_BATCH_MAX_FRAMES } from './frames.js';
import { CancelRequestSchema, InferenceRequestSchema } from './inference-request.js';
import { KvEventSchema, LifecycleEventSchema, RequestDoneSchema } from './worker-events.js';
import { MAX_KV_EVENT_BLOCKS, MAX_MESSAGE_LENGTH } from './wire-limits.js';
import { describeZodError } from './zod-errors.js';

const request = EXAMPLE_INFERENCE_REQUEST;

const errors = (result: { success: boolean; error?: unknown }) => (result.success ? [] : describeZodError(result.error as never));

describe('wire limits: forged ids are refused at the edge', () => {
  it('a request whose replyTo is not its own inbox at its gateway (a stage would publish where the sender chose)', () => {
    for (const replyTo of ['sluice.v1.control.admission.set', 'sluice.v1.inbox.gw-1.other', 'sluice.v1.inbox.gw-2.cmpl-1', 'sluice.v1.inbox.gw-1.>']) {
      expect(errors(InferenceRequestSchema.safeParse({ ...request, replyTo }))).toEqual([
        'replyTo: must be the inbox of this request at its gateway (sluice.v1.inbox.<gatewayId>.<id>)',
      ]);
    }
  });

  it('ids that stages build subjects from must be subject tokens (building one would throw deep in a turn)', () => {
    expect(errors(InferenceRequestSchema.safeParse({ ...request, id: 'a.b', replyTo: 'sluice.v1.inbox.gw-1.a.b' }))[0]).toMatch(/^id: must be a subject token/);
    expect(errors(InferenceRequestSchema.safeParse({ ...request, gatewayId: '*', replyTo: 'sluice.v1.inbox.*.cmpl-1' }))[0]).toMatch(/^gatewayId: must be a subject token/);
    const identity = { instanceId: 'w-0.r0', workerId: 'w', rank: 0, model: 'm', totalKvBlocks: 10, type: 'register', atUs: 1 };
    expect(errors(LifecycleEventSchema.safeParse(identity))[0]).toMatch(/^instanceId: must be a subject token/);
    expect(errors(RequestDoneSchema.safeParse({ requestId: 'r', instanceId: '>', reason: 'ok', atUs: 1 }))[0]).toMatch(/^instanceId: /);
  });

  it('an honest request passes', () => {
    expect(InferenceRequestSchema.safeParse(request).success).toBe(true);
  });
});

describe('wire limits: sizes', () => {
  it('no more block ids than the prompt has full blocks, and no absurd token counts', () => {
    expect(errors(InferenceRequestSchema.safeParse({ ...request, inputTokens: 31 }))).toEqual(['blockHashes: more block ids (2) than the prompt has full blocks of 16 tokens']);
    expect(errors(InferenceRequestSchema.safeParse({ ...request, maxTokens: 1e12 }))[0]).toMatch(/^maxTokens: Too big/);
    expect(errors(InferenceRequestSchema.safeParse({ ...request, attempt: 1e9 }))[0]).toMatch(/^attempt: Too big/);
    expect(errors(InferenceRequestSchema.safeParse({ ...request, fairnessId: 'x'.repeat(257) }))[0]).toMatch(/^fairnessId: Too big/);
    expect(errors(CancelRequestSchema.safeParse({ requestId: 'r'.repeat(129), reason: 'ended' }))[0]).toMatch(/^requestId: Too big/);
  });

  it('a tokens-batch holds at most TOKENS_BATCH_MAX_FRAMES frames; a KV event at most MAX_KV_EVENT_BLOCKS ids a side', () => {
    const frame = { type: 'tokens', requestId: 'r', count: 1, atMs: 1, instanceId: 'i' };
    expect(InboxFrameSchema.safeParse({ type: 'tokens-batch', frames: Array.from({ length: TOKENS_BATCH_MAX_FRAMES }, () => frame) }).success).toBe(true);
    expect(InboxFrameSchema.safeParse({ type: 'tokens-batch', frames: Array.from({ length: TOKENS_BATCH_MAX_FRAMES + 1 }, () => frame) }).success).toBe(false);
    const blocks = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(KvEventSchema.safeParse({ instanceId: 'i', atUs: 1, stored: blocks(MAX_KV_EVENT_BLOCKS), removed: [] }).success).toBe(true);
    expect(KvEventSchema.safeParse({ instanceId: 'i', atUs: 1, stored: [], removed: blocks(MAX_KV_EVENT_BLOCKS + 1) }).success).toBe(false);
  });

  it('an error frame’s message is cut, not refused: the request it ends still ends', () => {
    const parsed = InboxFrameSchema.parse({ type: 'error', requestId: 'r', stage: 'flow', reason: 'router_unavailable', message: 'x'.repeat(10_000) });
    expect(parsed.type === 'error' && parsed.message.length).toBe(MAX_MESSAGE_LENGTH + 1);
  });

  it('numbers JSON cannot hold exactly (1e400 reads as Infinity) are refused', () => {
    expect(InferenceRequestSchema.safeParse({ ...request, ...JSON.parse('{"deadlineUs": 1e400}') }).success).toBe(false);
    expect(InferenceRequestSchema.safeParse({ ...request, ...JSON.parse('{"sloTtftUs": 1e400}') }).success).toBe(false);
  });
});
