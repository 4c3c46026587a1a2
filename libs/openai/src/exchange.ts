import type { ServerResponse } from 'node:http';
import {
  ALL_WORKERS_BUSY_BODY,
  errorTypeOf,
  httpHeaders,
  httpStatusOf,
  outcomeOf,
  type ChatCompletion,
  type ChatCompletionChunk,
  type Completion,
  type FinishReason,
  type OutcomeReason,
  type SluiceAnswerExtension,
  type Usage,
} from '@sluice/contracts';
import { apiError, sendSizedJson, startSse } from './http-io.js';
import { tokenText } from './prompt.js';
import { SseWriter } from './sse-writer.js';

export type ApiKind = 'completion' | 'chat';

export interface ExchangeInit {
  readonly res: ServerResponse;
  readonly kind: ApiKind;
  readonly id: string;
  readonly model: string;
  readonly promptTokens: number;
  readonly maxTokens: number;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  /** The client asked for `sluice` (timings, instance) at the end of the answer. */
  readonly reportTimings: boolean;
  /** `dynamo`: `all_workers_busy` answers with Dynamo's bare body (gateway.errorBody). */
  readonly errorBody: 'openai' | 'dynamo';
  /** Called exactly once, when the exchange reaches its terminal outcome. */
  readonly onSettle: (reason: OutcomeReason, outputTokens: number) => void;
}

/**
 * One HTTP exchange: turns inbox frames into OpenAI's response shapes (a stream of chunks or one
 * object) and guarantees exactly one terminal outcome, whatever arrives and in what order.
 */
export class Exchange {
  private settled = false;
  private outputTokens = 0;
  private text = '';
  private readonly created = Math.floor(Date.now() / 1000);
  /** The event stream, once it has begun (headers written). */
  private sse: SseWriter | undefined;
  /** The JSON answer's size, once sent. */
  private jsonBytes = 0;
  /** Prompt tokens the serving instance found in its prefix cache, once the end frame told. */
  private cachedTokens: number | undefined;

  constructor(private readonly init: ExchangeInit) {}

  /** Tokens already sent to the client. */
  get tokensSent(): number {
    return this.outputTokens;
  }

  get isSettled(): boolean {
    return this.settled;
  }

  onTokens(count: number): void {
    if (this.settled) return;
    const sse = this.init.stream ? this.eventStream() : undefined;
    for (let i = 0; i < count; i++) {
      const piece = tokenText(this.outputTokens);
      this.outputTokens += 1;
      // The synthetic model always generates max_tokens, so the last chunk is known when it comes.
      const finish: FinishReason = this.outputTokens >= this.init.maxTokens ? 'length' : null;
      if (sse) sse.send(this.init.kind === 'chat' ? this.chatChunk({ content: piece }, finish) : this.completionChunk(piece, finish));
      else this.text += piece;
    }
  }

  /**
   * The last attempt ended: the answer is what the client received over every attempt (a migrated
   * request's stream went on where it stopped), so `usage` counts the tokens actually sent.
   */
  onEnd(extension: SluiceAnswerExtension, cachedTokens?: number): void {
    if (this.settled) return;
    this.cachedTokens = cachedTokens;
    const { res, stream, kind } = this.init;
    const finish: FinishReason = this.outputTokens >= this.init.maxTokens ? 'length' : 'stop';
    if (stream) {
      const sse = this.eventStream();
      if (this.outputTokens < this.init.maxTokens) {
        sse.send(kind === 'chat' ? this.chatChunk({}, finish) : this.completionChunk('', finish));
      }
      if (this.init.includeUsage) sse.send({ ...this.envelope(), choices: [], usage: this.usage() });
      if (this.init.reportTimings) sse.send({ ...this.envelope(), choices: [], sluice: extension });
      sse.send('[DONE]');
      sse.end();
    } else {
      const body = kind === 'chat' ? this.chatCompletion(finish) : this.completion(finish);
      this.jsonBytes = sendSizedJson(res, 200, this.init.reportTimings ? { ...body, sluice: extension } : body, { [httpHeaders.requestId]: this.init.id });
    }
    this.settle('ok');
  }

  /**
   * Ends the exchange with an error: an HTTP error answer, or an error event if streaming began.
   * `retryAfterS`: the answer's `retry-after` (a 429 or 503; the core's `retryAfterSecondsOf`).
   */
  fail(reason: OutcomeReason, message: string, retryAfterS?: number): void {
    if (this.settled) return;
    const { res } = this.init;
    const status = httpStatusOf(reason);
    const body = reason === 'all_workers_busy' && this.init.errorBody === 'dynamo' ? ALL_WORKERS_BUSY_BODY : apiError(message, errorTypeOf(reason), null, reason);
    if (this.sse !== undefined) {
      // Streaming began: the error is the last event.
      if (!res.writableEnded) {
        this.sse.send(body);
        this.sse.send('[DONE]');
        this.sse.end();
      }
    } else if (!res.destroyed) {
      const headers: Record<string, string> = { [httpHeaders.requestId]: this.init.id };
      if (outcomeOf(reason) === 'dropped' || outcomeOf(reason) === 'rejected') headers[httpHeaders.droppedReason] = reason;
      if (retryAfterS !== undefined) headers['retry-after'] = String(retryAfterS);
      this.jsonBytes = sendSizedJson(res, status, body, headers);
    }
    this.settle(reason);
  }

  /** Body bytes sent to the client: the event stream's, or the JSON answer's. */
  get responseBytes(): number {
    return this.sse?.bytesWritten ?? this.jsonBytes;
  }

  /** The event stream, begun on first use: headers, and for chat the assistant's role first (as OpenAI). */
  private eventStream(): SseWriter {
    if (this.sse !== undefined) return this.sse;
    const { res } = this.init;
    startSse(res, { [httpHeaders.requestId]: this.init.id });
    this.sse = new SseWriter(res);
    if (this.init.kind === 'chat') this.sse.send(this.chatChunk({ role: 'assistant', content: '' }, null));
    return this.sse;
  }

  /** The client went away: nothing can be answered; the outcome is still counted. */
  abandon(): void {
    this.settle('client_disconnected');
  }

  private settle(reason: OutcomeReason): void {
    if (this.settled) return;
    this.settled = true;
    this.init.onSettle(reason, this.outputTokens);
  }

  private usage(): Usage {
    return {
      prompt_tokens: this.init.promptTokens,
      completion_tokens: this.outputTokens,
      total_tokens: this.init.promptTokens + this.outputTokens,
      // The serving attempt's: a migrated request's last attempt prefilled the prompt and the tokens already sent.
      ...(this.cachedTokens !== undefined && { prompt_tokens_details: { cached_tokens: this.cachedTokens } }),
    };
  }

  private envelope() {
    return { id: this.init.id, object: this.init.kind === 'chat' ? 'chat.completion.chunk' : 'text_completion', created: this.created, model: this.init.model };
  }

  private completionChunk(text: string, finish: FinishReason): Completion {
    const chunk: Completion = { id: this.init.id, object: 'text_completion', created: this.created, model: this.init.model, choices: [{ index: 0, text, logprobs: null, finish_reason: finish }] };
    return this.withNullUsage(chunk);
  }

  /**
   * A streamed chunk when the client asked for usage: `"usage": null` on every chunk but the
   * final usage chunk, as OpenAI streams them (`stream_options.include_usage`).
   */
  private withNullUsage<T extends Completion | ChatCompletionChunk>(chunk: T): T {
    if (this.init.stream && this.init.includeUsage) chunk.usage = null;
    return chunk;
  }

  private chatChunk(delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason): ChatCompletionChunk {
    return this.withNullUsage({
      id: this.init.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.init.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  }

  private completion(finish: FinishReason): Completion {
    return { id: this.init.id, object: 'text_completion', created: this.created, model: this.init.model, choices: [{ index: 0, text: this.text, logprobs: null, finish_reason: finish }], usage: this.usage() };
  }

  private chatCompletion(finish: FinishReason): ChatCompletion {
    return {
      id: this.init.id,
      object: 'chat.completion',
      created: this.created,
      model: this.init.model,
      choices: [{ index: 0, message: { role: 'assistant', content: this.text }, logprobs: null, finish_reason: finish }],
      usage: this.usage(),
    };
  }
}
