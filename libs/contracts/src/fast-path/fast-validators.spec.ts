import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { EndFrameSchema, HeldFrameSchema, InboxFrameSchema, TokensBatchFrameSchema, TokensFrameSchema } from '../frames.js';
import { InferenceRequestSchema, StageTimingsSchema } from '../inference-request.js';
import { KvEventSchema, LoadSnapshotSchema, RequestDoneSchema } from '../worker-events.js';
import { fastValidatorOf, type FastValidator } from './fast-validators.js';
import { END_FRAME_FIELDS, HELD_FRAME_FIELDS, TOKENS_BATCH_FRAME_FIELDS, TOKENS_FRAME_FIELDS } from './inbox-frames.fast.js';
import { INFERENCE_REQUEST_FIELDS, STAGE_TIMINGS_FIELDS } from './inference-request.fast.js';
import realMessages from './real-messages.json' with { type: 'json' };
import { fieldsOfShape, ignoringUnknownKeys, nearMisses, skipping, sortedFields, soundnessProperty, unsoundness } from './testing/near-misses.js';
import { endFrameArb, errorFrameArb, heldFrameArb, inferenceRequestArb, kvEventArb, loadSnapshotArb, requestDoneArb, tokensBatchFrameArb, tokensFrameArb } from './testing/wire-messages.js';
import type { KnownFields } from './wire-checks.js';
import { KV_EVENT_FIELDS, LOAD_SNAPSHOT_FIELDS, REQUEST_DONE_FIELDS } from './worker-events.fast.js';

const RUNS = 2_000;

interface Case {
  readonly name: string;
  readonly schema: z.ZodObject;
  readonly fields: KnownFields;
  readonly valid: fc.Arbitrary<unknown>;
  /** The nested object schemas the validator checks, with the fields it knows of each. */
  readonly nested?: readonly (readonly [z.ZodObject, KnownFields])[];
}

const CASES: readonly Case[] = [
  { name: 'InferenceRequest', schema: InferenceRequestSchema, fields: INFERENCE_REQUEST_FIELDS, valid: inferenceRequestArb, nested: [[StageTimingsSchema, STAGE_TIMINGS_FIELDS]] },
  { name: 'tokens frame', schema: TokensFrameSchema, fields: TOKENS_FRAME_FIELDS, valid: tokensFrameArb },
  { name: 'tokens-batch frame', schema: TokensBatchFrameSchema, fields: TOKENS_BATCH_FRAME_FIELDS, valid: tokensBatchFrameArb, nested: [[TokensFrameSchema, TOKENS_FRAME_FIELDS]] },
  { name: 'end frame', schema: EndFrameSchema, fields: END_FRAME_FIELDS, valid: endFrameArb, nested: [[StageTimingsSchema, STAGE_TIMINGS_FIELDS]] },
  { name: 'held frame', schema: HeldFrameSchema, fields: HELD_FRAME_FIELDS, valid: heldFrameArb },
  { name: 'load snapshot', schema: LoadSnapshotSchema, fields: LOAD_SNAPSHOT_FIELDS, valid: loadSnapshotArb },
  { name: 'done event', schema: RequestDoneSchema, fields: REQUEST_DONE_FIELDS, valid: requestDoneArb },
  { name: 'KV event', schema: KvEventSchema, fields: KV_EVENT_FIELDS, valid: kvEventArb },
];

function validatorOf(schema: z.ZodType): FastValidator {
  const fast = fastValidatorOf(schema);
  if (fast === undefined) throw new Error('no fast validator for this schema');
  return fast;
}

describe.each(CASES)('the fast validator of the $name', ({ schema, fields, valid, nested = [] }) => {
  const fast = validatorOf(schema);

  it("knows exactly the schema's fields, and which of them zod would refuse or fill when absent", () => {
    expect(sortedFields(fields)).toEqual(fieldsOfShape(schema));
    for (const [inner, innerFields] of nested) expect(sortedFields(innerFields)).toEqual(fieldsOfShape(inner));
  });

  it('accepts only what zod accepts and returns unchanged, on valid messages and their near misses', () => {
    fc.assert(soundnessProperty(schema, fast, nearMisses(valid)), { numRuns: RUNS });
  });

  it('accepts every valid message (else the fast path would gain nothing)', () => {
    fc.assert(
      fc.property(valid, (message) => {
        expect(schema.safeParse(message).success).toBe(true);
        expect(fast(message)).toBe(true);
      }),
      { numRuns: RUNS / 4 },
    );
  });

  // A sabotaged validator that skips one field's check, or ignores unknown keys, must be caught by
  // the property above: else its near misses never reach that field and prove nothing about it.
  it.each([...fields.required, ...fields.optional])('is caught by the property when it skips the check of %s', (key) => {
    const result = fc.check(soundnessProperty(schema, skipping(fast, key), nearMisses(valid)), { numRuns: RUNS * 5 });
    expect(result.failed).toBe(true);
  });

  it('is caught by the property when it ignores unknown keys', () => {
    const sabotaged = ignoringUnknownKeys(fast, fields);
    const result = fc.check(soundnessProperty(schema, sabotaged, nearMisses(valid)), { numRuns: RUNS * 5 });
    expect(result.failed).toBe(true);
  });
});

describe('the fast validator of the inbox frames (the union the gateway listens with)', () => {
  const fast = validatorOf(InboxFrameSchema);
  const hot = fc.oneof(tokensFrameArb, tokensBatchFrameArb, endFrameArb, heldFrameArb);

  it('accepts only what zod accepts and returns unchanged', () => {
    fc.assert(soundnessProperty(InboxFrameSchema, fast, nearMisses(fc.oneof(hot, errorFrameArb))), { numRuns: RUNS });
  });

  it('accepts the four hot frames and leaves the others to zod', () => {
    fc.assert(
      fc.property(hot, (frame) => {
        expect(fast(frame)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(errorFrameArb, (frame) => {
        expect(InboxFrameSchema.safeParse(frame).success).toBe(true);
        expect(fast(frame)).toBe(false);
      }),
    );
  });
});

describe('the fast validators on the messages a real cluster sent', () => {
  // Captured by `node libs/contracts/bench/capture-messages.mjs --requests 200 --out …` (a local cluster, streamed and unstreamed completions).
  const SCHEMA_OF_KIND: Readonly<Record<string, z.ZodType>> = {
    'admission.submit': InferenceRequestSchema,
    'flow.submit': InferenceRequestSchema,
    'router.submit': InferenceRequestSchema,
    'worker.submit': InferenceRequestSchema,
    'inbox:held': InboxFrameSchema,
    'inbox:end': InboxFrameSchema,
    'inbox:tokens': InboxFrameSchema,
    'inbox:tokens-batch': InboxFrameSchema,
    'worker.load': LoadSnapshotSchema,
    'worker.done': RequestDoneSchema,
    'worker.kv': KvEventSchema,
  };
  const captured = realMessages as Readonly<Record<string, readonly unknown[]>>;

  it.each(Object.keys(SCHEMA_OF_KIND))('accepts every captured %s message, as zod does, unchanged', (kind) => {
    const schema = SCHEMA_OF_KIND[kind]!;
    const messages = captured[kind] ?? [];
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) {
      expect(validatorOf(schema)(message)).toBe(true);
      expect(unsoundness(schema, validatorOf(schema), message)).toBeUndefined();
    }
  });
});

describe('fastValidatorOf', () => {
  it('has none for a schema without one (zod alone checks it)', () => {
    expect(fastValidatorOf(StageTimingsSchema)).toBeUndefined();
  });
});
