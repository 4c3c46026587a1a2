import { BLOCK_SIZE } from '@sluice/contracts';
import type { EngineRequest, EngineSnapshot, EnqueueResult, InstanceEngine, Micros, StepResult } from './engine.types.js';

export interface FixedStepEngineOptions {
  /** Every step takes this long, whatever the batch holds. */
  readonly stepTimeUs: Micros;
  readonly maxRunning: number;
  readonly totalKvBlocks: number;
  readonly maxModelLen: number;
}

interface Running {
  readonly request: EngineRequest;
  generated: number;
}

const blocksFor = (tokens: number) => Math.ceil(tokens / BLOCK_SIZE);

/**
 * The walking skeleton's engine: continuous batching with a fixed step time, one token per
 * running request per step, and KV blocks reserved for prompt + output at batch entry (so it
 * never preempts). Enough to stream real tokens through the pipeline; the vLLM-like engine
 * (chunked prefill, paged KV with prefix caching, α/β step times) replaces it.
 */
export class FixedStepEngine implements InstanceEngine {
  private readonly waiting: EngineRequest[] = [];
  private readonly running = new Map<string, Running>();
  private usedBlocks = 0;

  constructor(private readonly options: FixedStepEngineOptions) {}

  enqueue(request: EngineRequest, _nowUs?: Micros): EnqueueResult {
    const total = request.inputTokens + request.maxTokens;
    if (request.inputTokens >= this.options.maxModelLen || total > this.options.maxModelLen) {
      return { accepted: false, message: `prompt (${request.inputTokens}) + max_tokens (${request.maxTokens}) exceeds the model's context of ${this.options.maxModelLen} tokens` };
    }
    if (blocksFor(total) > this.options.totalKvBlocks) {
      return { accepted: false, message: `needs ${blocksFor(total)} KV blocks; an instance has ${this.options.totalKvBlocks}` };
    }
    this.waiting.push(request);
    return { accepted: true };
  }

  cancel(requestId: string, _nowUs?: Micros): boolean {
    const running = this.running.get(requestId);
    if (running) {
      this.release(running.request);
      this.running.delete(requestId);
      return true;
    }
    const index = this.waiting.findIndex((r) => r.id === requestId);
    if (index === -1) return false;
    this.waiting.splice(index, 1);
    return true;
  }

  hasWork(): boolean {
    return this.running.size > 0 || this.waiting.length > 0;
  }

  step(nowUs: Micros): StepResult {
    this.admitWaiting();
    const tokens: { requestId: string; count: number }[] = [];
    const completed: string[] = [];
    for (const [id, entry] of this.running) {
      if (entry.generated < entry.request.maxTokens) {
        entry.generated += 1;
        tokens.push({ requestId: id, count: 1 });
      }
      if (entry.generated >= entry.request.maxTokens) {
        completed.push(id);
        this.release(entry.request);
        this.running.delete(id);
      }
    }
    return { startUs: nowUs, durationUs: this.options.stepTimeUs, tokens, completed };
  }

  snapshot(): EngineSnapshot {
    let decodeBlocks = 0;
    for (const { request, generated } of this.running.values()) decodeBlocks += blocksFor(request.inputTokens + generated);
    return {
      queueDepth: this.waiting.length,
      batchSize: this.running.size,
      inFlight: this.waiting.length + this.running.size,
      kvUtilization: this.usedBlocks / this.options.totalKvBlocks,
      freeKvBlocks: this.options.totalKvBlocks - this.usedBlocks,
      totalKvBlocks: this.options.totalKvBlocks,
      activePrefillTokens: 0,
      activeDecodeBlocks: decodeBlocks,
      cacheHitRate: 0,
      preemptions: 0,
    };
  }

  /** Head-of-line: the first waiting request that does not fit stops admission. */
  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.running.size < this.options.maxRunning) {
      const head = this.waiting[0]!;
      const blocks = blocksFor(head.inputTokens + head.maxTokens);
      if (this.usedBlocks + blocks > this.options.totalKvBlocks) return;
      this.waiting.shift();
      this.usedBlocks += blocks;
      this.running.set(head.id, { request: head, generated: 0 });
    }
  }

  private release(request: EngineRequest): void {
    this.usedBlocks -= blocksFor(request.inputTokens + request.maxTokens);
  }
}
