import { describe, expect, it } from 'vitest';
import { EXAMPLE_INFERENCE_REQUEST } from './example-messages.js';
import { BLOCK_SIZE, BlockIdSchema, blockHashes, blockIdOf, blockIds } from './block-hashes.js';
import { CompletionRequestSchema, ChatCompletionRequestSchema } from './openai.js';
import { InboxFrameSchema } from './frames.js';
import { InferenceRequestSchema } from './inference-request.js';
import { SetWorkerFaultsSchema, WorkerFaultsSchema } from './worker-events.js';
import { describeZodError } from './zod-errors.js';

const request = EXAMPLE_INFERENCE_REQUEST;

describe('InferenceRequestSchema', () => {
  it('accepts a well-formed request and defaults its timings', () => {
    expect(InferenceRequestSchema.parse(request).timings).toEqual({});
  });

  it('names the field that is wrong', () => {
    const result = InferenceRequestSchema.safeParse({ ...request, sloClass: 'gold', maxTokens: -1 });
    expect(result.success).toBe(false);
    const lines = describeZodError(result.error!);
    expect(lines.some((l) => l.startsWith('sloClass:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('maxTokens:'))).toBe(true);
  });
});

describe('InboxFrameSchema', () => {
  it('tells frames apart by type', () => {
    expect(InboxFrameSchema.parse({ type: 'tokens', requestId: 'r', count: 1, atMs: 1, instanceId: 'i' }).type).toBe('tokens');
    expect(InboxFrameSchema.parse({ type: 'error', requestId: 'r', stage: 'admission', reason: 'insufficient_tokens', message: 'm' }).type).toBe('error');
    expect(InboxFrameSchema.safeParse({ type: 'error', requestId: 'r', stage: 'admission', reason: 'made-up', message: 'm' }).success).toBe(false);
  });
});

describe('OpenAI request schemas', () => {
  it('take a string or token ids as the prompt, and default max_tokens to 16', () => {
    expect(CompletionRequestSchema.parse({ model: 'm', prompt: 'hi' }).max_tokens).toBe(16);
    expect(CompletionRequestSchema.parse({ model: 'm', prompt: [1, 2, 3] }).prompt).toEqual([1, 2, 3]);
    expect(CompletionRequestSchema.safeParse({ model: 'm', prompt: [1.5] }).success).toBe(false);
    expect(CompletionRequestSchema.safeParse({ model: 'm', prompt: [] }).success).toBe(false);
    expect(CompletionRequestSchema.safeParse({ model: 'm', prompt: 'x', n: 2 }).success).toBe(false);
  });

  it('accept sampling parameters they do not act on', () => {
    expect(CompletionRequestSchema.safeParse({ model: 'm', prompt: 'x', temperature: 0.2, top_p: 1 }).success).toBe(true);
  });

  it('require chat messages', () => {
    const result = ChatCompletionRequestSchema.safeParse({ model: 'm', messages: [] });
    expect(result.success).toBe(false);
    expect(describeZodError(result.error!)[0]).toMatch(/^messages:/);
  });
});

describe('blockHashes', () => {
  it('hashes only full blocks, chaining each to the previous one', () => {
    const ids = Array.from({ length: 40 }, (_, i) => i);
    const hashes = blockHashes(ids);
    expect(hashes).toHaveLength(Math.floor(40 / BLOCK_SIZE));
    expect(hashes[0]).toMatch(/^[0-9a-f]{64}$/);
    // A shared first block gives the same first hash; a different first block changes every hash.
    const other = blockHashes([99, ...ids.slice(1)]);
    expect(blockHashes(ids.slice(0, 16))[0]).toBe(hashes[0]);
    expect(other[0]).not.toBe(hashes[0]);
    expect(other[1]).not.toBe(hashes[1]);
  });

  it('matches the BLIS construction: sha256(previous hash ‖ "id|" …)', async () => {
    const { createHash } = await import('node:crypto');
    const ids = Array.from({ length: 32 }, (_, i) => 1000 + i);
    const first = createHash('sha256').update(ids.slice(0, 16).map((id) => `${id}|`).join('')).digest('hex');
    const second = createHash('sha256').update(first + ids.slice(16).map((id) => `${id}|`).join('')).digest('hex');
    expect(blockHashes(ids)).toEqual([first, second]);
  });

  it('carries each hash as a block id: its first 13 hex digits (52 bits), a safe integer the wire schema accepts', () => {
    const ids = Array.from({ length: 48 }, (_, i) => 7 * i);
    const hexes = blockHashes(ids);
    expect(blockIds(ids)).toEqual(hexes.map((hex) => Number.parseInt(hex.slice(0, 13), 16)));
    expect(blockIdOf('fffffffffffff' + '0'.repeat(51))).toBe(2 ** 52 - 1);
    expect(blockIdOf('0000000000001' + 'f'.repeat(51))).toBe(1);
    for (const id of blockIds(ids)) expect(BlockIdSchema.safeParse(id).success).toBe(true);
    for (const bad of ['abc', -1, 1.5, 2 ** 53]) expect(BlockIdSchema.safeParse(bad).success).toBe(false);
  });
});

describe('worker fault knobs', () => {
  it('a change carries only the knobs it names, so the others keep their values', () => {
    expect(SetWorkerFaultsSchema.parse({ faults: { hang: true } })).toEqual({ faults: { hang: true } });
    expect(WorkerFaultsSchema.parse({})).toEqual({ slowdown: 1, failureRate: 0, failureTypes: ['server_error'], hang: false });
    expect(SetWorkerFaultsSchema.safeParse({ faults: { failureRate: 2 } }).success).toBe(false);
  });
});
