import { describe, expect, it } from 'vitest';
import { instanceView } from '../testing/builders.js';
import { BusyThresholdBook, busyThresholdsFor, freeInstances, isInstanceBusy } from './busy-thresholds.js';

const QWEN = 'qwen3-14b';
const LLAMA = 'llama-3.1-8b';
/** 1000 KV blocks, so activeDecodeBlocks/1000 is the decode fraction. */
const rank = (instanceId: string, workerId: string, decodeBlocks: number, prefillTokens = 0, model = QWEN) =>
  instanceView({ instanceId, workerId, model, totalKvBlocks: 1000, activeDecodeBlocks: decodeBlocks, activePrefillTokens: prefillTokens });

describe('busy thresholds', () => {
  it('a model override of null switches a check off where the top-level value is set', () => {
    const settings = { activeDecodeBlocksThreshold: 0.5, activePrefillTokensThreshold: 10, models: { [QWEN]: { activeDecodeBlocksThreshold: null } } };
    expect(busyThresholdsFor(settings, QWEN)).toEqual({ activePrefillTokensThreshold: 10 });
    expect(busyThresholdsFor(settings, LLAMA)).toEqual({ activeDecodeBlocksThreshold: 0.5, activePrefillTokensThreshold: 10 });
  });

  it('an instance is busy strictly past either threshold, never with none set', () => {
    expect(isInstanceBusy(rank('a', 'w', 500), { activeDecodeBlocksThreshold: 0.5 })).toBe(false);
    expect(isInstanceBusy(rank('a', 'w', 501), { activeDecodeBlocksThreshold: 0.5 })).toBe(true);
    expect(isInstanceBusy(rank('a', 'w', 0, 11), { activePrefillTokensThreshold: 10 })).toBe(true);
    expect(isInstanceBusy(rank('a', 'w', 1000, 1e6), {})).toBe(false);
  });

  it('the routing candidates are the model’s free instances; other models are left alone', () => {
    const view = { instances: [rank('a', 'w1', 900), rank('b', 'w1', 100), rank('c', 'w2', 900), rank('d', 'w3', 900, 0, LLAMA)] };
    const free = freeInstances(view, QWEN, { activeDecodeBlocksThreshold: 0.5 });
    expect(free.view.instances.map((i) => i.instanceId)).toEqual(['b', 'd']);
    expect(free).toMatchObject({ total: 3, busy: 2 });
    // No threshold: the view as it was, nothing counted.
    expect(freeInstances(view, QWEN, {})).toEqual({ view, total: 0, busy: 0 });
  });

  it('a book keeps the newest announcement and never goes back', () => {
    const book = new BusyThresholdBook({ activeDecodeBlocksThreshold: 0.9 });
    expect(book.thresholdsFor(QWEN)).toEqual({ activeDecodeBlocksThreshold: 0.9 });
    expect(book.adopt({ settings: { activeDecodeBlocksThreshold: 0.5 }, changedAtUs: 100 })).toBe(true);
    expect(book.thresholdsFor(QWEN)).toEqual({ activeDecodeBlocksThreshold: 0.5 });
    // A replica that restarted announces the configured values (0), or an older change: ignored.
    expect(book.adopt({ settings: { activeDecodeBlocksThreshold: 0.9 }, changedAtUs: 0 })).toBe(false);
    expect(book.adopt({ settings: {}, changedAtUs: 100 })).toBe(false);
    expect(book.thresholdsFor(QWEN)).toEqual({ activeDecodeBlocksThreshold: 0.5 });
    // The same change as a peer stamped it a little later: its time is kept, and it is no change.
    expect(book.adopt({ settings: { activeDecodeBlocksThreshold: 0.5 }, changedAtUs: 104 })).toBe(false);
    expect(book.adopt({ settings: { activeDecodeBlocksThreshold: 0.9 }, changedAtUs: 103 })).toBe(false);
    expect(book.announcement().changedAtUs).toBe(104);
    // A local change stamped at an earlier clock reading still counts as newer.
    book.replace({ activePrefillTokensThreshold: 5 }, 50);
    expect(book.announcement()).toEqual({ settings: { activePrefillTokensThreshold: 5 }, changedAtUs: 105 });
  });
});
