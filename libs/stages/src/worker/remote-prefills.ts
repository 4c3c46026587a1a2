import type { Micros } from '@sluice/contracts';
import { KvTransferLedger, type FinishedTransfer, type KvTransfer } from '../disaggregation/kv-transfer-ledger.js';
import type { KvTransferSettings } from './worker.settings.js';
import type { HeldRequest } from './held-request.js';

/**
 * What a decode instance holds outside its engine (docs/behaviour.md §1, "Disaggregated
 * prefill/decode"): requests whose prompt is being prefilled on another instance, then whose KV
 * blocks are on their way here. A request is in one of the two, or in neither (in the engine).
 * Pure bookkeeping: the instance core decides what happens at each step of the hand-off.
 */
export class RemotePrefills<H extends HeldRequest> {
  /** Sent to their prefill instance, not prefilled yet. */
  private readonly awaiting = new Map<string, H>();
  /** Their blocks are moving: in the ledger under the same id. */
  private readonly moving = new Map<string, H>();
  private readonly ledger: KvTransferLedger;

  constructor(transfer: KvTransferSettings) {
    this.ledger = new KvTransferLedger(transfer.model, transfer.bytesPerBlock);
  }

  get size(): number {
    return this.awaiting.size + this.moving.size;
  }

  await(request: H): void {
    this.awaiting.set(request.id, request);
  }

  /** The request still waiting for its prefill, taken out: its prefill is done, failed or refused. */
  takeAwaiting(requestId: string): H | undefined {
    const request = this.awaiting.get(requestId);
    if (request) this.awaiting.delete(requestId);
    return request;
  }

  /** Starts moving `blocks` blocks of the request from its prefill instance. */
  startTransfer(request: H, prefillInstanceId: string, decodeInstanceId: string, blocks: number, nowUs: Micros): KvTransfer {
    this.moving.set(request.id, request);
    return this.ledger.start({ requestId: request.id, prefillInstanceId, decodeInstanceId, blocks }, nowUs);
  }

  /** The transfers that ended by `nowUs`, earliest first, with their requests. */
  landed(nowUs: Micros): { readonly request: H; readonly finished: FinishedTransfer }[] {
    const out: { request: H; finished: FinishedTransfer }[] = [];
    for (const finished of this.ledger.finish(nowUs)) {
      const request = this.moving.get(finished.transfer.requestId);
      if (!request) continue;
      this.moving.delete(finished.transfer.requestId);
      out.push({ request, finished });
    }
    return out;
  }

  nextLandingUs(): Micros | undefined {
    return this.ledger.nextDoneUs();
  }

  holding(requestId: string): H | undefined {
    return this.awaiting.get(requestId) ?? this.moving.get(requestId);
  }

  /** Lets the request go wherever it is in the hand-off (a cancel); `midTransfer`: its transfer was under way and fails. */
  remove(requestId: string): { readonly request: H; readonly midTransfer: boolean } | undefined {
    const waiting = this.takeAwaiting(requestId);
    if (waiting) return { request: waiting, midTransfer: false };
    const moving = this.moving.get(requestId);
    if (!moving) return undefined;
    this.moving.delete(requestId);
    this.ledger.abort(requestId);
    return { request: moving, midTransfer: true };
  }

  /** Every request in the hand-off, taken out (the instance goes away), as `remove` gives each. */
  removeAll(): { readonly request: H; readonly midTransfer: boolean }[] {
    return [...this.awaiting.keys(), ...this.moving.keys()].map((id) => this.remove(id)!);
  }
}
