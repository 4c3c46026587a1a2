import { micros } from '@sluice/contracts';
import { KV_TRANSFER_PROFILES, kvTransferDurationUs } from '@sluice/engine';
import { describe, expect, it } from 'vitest';
import { KvTransferLedger } from './kv-transfer-ledger.js';

const bytesPerBlock = 2_621_440; // a Qwen3-14B bf16 block
const nixl = KV_TRANSFER_PROFILES.nixl;
const transfer = (requestId: string, blocks: number, decodeInstanceId = 'd1') => ({ requestId, prefillInstanceId: 'p1', decodeInstanceId, blocks });

describe('KvTransferLedger', () => {
  it('ends a transfer after the model says, with the observations the NIXL histograms record', () => {
    const ledger = new KvTransferLedger(nixl, bytesPerBlock);
    const started = ledger.start(transfer('r1', 100), micros(1_000));
    expect(started.doneAtUs).toBe(1_000 + Math.ceil(kvTransferDurationUs(nixl, 100, bytesPerBlock)));
    expect(ledger.nextDoneUs()).toBe(started.doneAtUs);
    expect(ledger.finish(micros(started.doneAtUs - 1))).toEqual([]);
    const [done] = ledger.finish(started.doneAtUs);
    expect(done?.transfer.requestId).toBe('r1');
    expect(done?.observation).toMatchObject({ bytesTransferred: 100 * bytesPerBlock, numDescriptors: 100 });
    expect(ledger.size).toBe(0);
    expect(ledger.nextDoneUs()).toBeUndefined();
  });

  it('finishes due transfers earliest first, and an empty transfer at once with no observation', () => {
    const ledger = new KvTransferLedger(nixl, bytesPerBlock);
    ledger.start(transfer('big', 1_000), micros(0));
    ledger.start(transfer('small', 1), micros(0));
    ledger.start(transfer('none', 0), micros(0));
    const done = ledger.finish(micros(1e9));
    expect(done.map((d) => d.transfer.requestId)).toEqual(['none', 'small', 'big']);
    expect(done[0]?.observation).toBeUndefined();
  });

  it('fails a transfer whose request went away, once, and leaves the others to finish', () => {
    const ledger = new KvTransferLedger(nixl, bytesPerBlock);
    ledger.start(transfer('r1', 10), micros(0));
    ledger.start(transfer('r2', 10), micros(0));
    expect(ledger.abort('r1')).toBe(true);
    expect(ledger.abort('r1')).toBe(false);
    expect(ledger.finish(micros(1e9)).map((d) => d.transfer.requestId)).toEqual(['r2']);
  });

  it('refuses a second transfer for a request already moving', () => {
    const ledger = new KvTransferLedger(nixl, bytesPerBlock);
    ledger.start(transfer('r1', 10), micros(0));
    expect(() => ledger.start(transfer('r1', 10), micros(5))).toThrow(/already/);
  });
});
