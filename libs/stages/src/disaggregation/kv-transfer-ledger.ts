import { micros, type Micros } from '@sluice/contracts';
import { kvTransferDurationUs, kvTransferObservation, type KvTransferModel, type KvTransferObservation } from '@sluice/engine';

/**
 * The KV transfers a decode instance is pulling from prefill instances, one ledger per decode
 * instance (docs/behaviour.md §1, "Disaggregated prefill/decode"). A transfer starts when the
 * prefill is done and the decode instance pulls the blocks it lacks; it ends
 * `kvTransferDurationUs` later, when the decode instance lands them and the request decodes there.
 * A request that goes away first (cancelled, migrated, handed back) fails its transfer. A lost
 * decode instance takes its ledger with it: its requests migrate like any other a lost instance
 * held (their prompt is prefilled again wherever the router sends them).
 *
 * Pure: every call takes the time.
 */
export interface KvTransfer {
  readonly requestId: string;
  readonly prefillInstanceId: string;
  readonly decodeInstanceId: string;
  /** Blocks moved: the prompt blocks the decode instance did not hold. */
  readonly blocks: number;
  readonly startUs: Micros;
  readonly doneAtUs: Micros;
}

export interface FinishedTransfer {
  readonly transfer: KvTransfer;
  /** What vLLM's NIXL histograms record; absent when no block moved. */
  readonly observation?: KvTransferObservation;
}

export class KvTransferLedger {
  private readonly inFlight = new Map<string, KvTransfer>();

  constructor(
    private readonly model: KvTransferModel,
    private readonly bytesPerBlock: number,
  ) {}

  get size(): number {
    return this.inFlight.size;
  }

  start(transfer: Omit<KvTransfer, 'startUs' | 'doneAtUs'>, nowUs: Micros): KvTransfer {
    if (this.inFlight.has(transfer.requestId)) throw new Error(`request ${transfer.requestId} already has a KV transfer in flight`);
    const doneAtUs = micros(nowUs + Math.ceil(kvTransferDurationUs(this.model, transfer.blocks, this.bytesPerBlock)));
    const started = { ...transfer, startUs: nowUs, doneAtUs };
    this.inFlight.set(transfer.requestId, started);
    return started;
  }

  /** The transfers due by `nowUs`, earliest first, taken out of the ledger. */
  finish(nowUs: Micros): FinishedTransfer[] {
    const due = [...this.inFlight.values()].filter((t) => t.doneAtUs <= nowUs).sort((a, b) => a.doneAtUs - b.doneAtUs);
    return due.map((transfer) => {
      this.inFlight.delete(transfer.requestId);
      const observation = kvTransferObservation(this.model, transfer.blocks, this.bytesPerBlock);
      return observation ? { transfer, observation } : { transfer };
    });
  }

  /** When the next transfer ends, if any is in flight: the driver's next wake-up. */
  nextDoneUs(): Micros | undefined {
    let next: Micros | undefined;
    for (const t of this.inFlight.values()) if (next === undefined || t.doneAtUs < next) next = t.doneAtUs;
    return next;
  }

  /** The request went away mid-transfer (cancelled, handed back): its transfer fails. False if none was in flight. */
  abort(requestId: string): boolean {
    return this.inFlight.delete(requestId);
  }
}
