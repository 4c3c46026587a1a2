import type { EndFrame, ErrorFrame, TokensFrame } from '@sluice/contracts';
import type { Exchange } from '@sluice/openai';
import { retryAfterSecondsOf } from '@sluice/stages';

/** What an instance tells the one who sent it a request: its tokens, its end, or its error. */
export type ReplyFrame = TokensFrame | EndFrame | ErrorFrame;

/** A request an instance serves on its own HTTP port: its answer, and the tokens already written to it. */
interface DirectAnswer {
  readonly exchange: Exchange;
  sent: number;
}

/**
 * The replies of the requests an instance serves over its own HTTP port (worker.http), handed to
 * their HTTP answers in the process instead of published on the bus: the same frames the worker
 * core's effects make for a gateway, so a request on an instance's port runs through the same
 * engine, steps and timing as one routed to it. No gateway stands between: a stage's frame is the
 * answer (no migration, no re-submission; a drained instance ends it `shutdown`).
 */
export class DirectReplies {
  private readonly answers = new Map<string, DirectAnswer>();

  open(requestId: string, exchange: Exchange): void {
    this.answers.set(requestId, { exchange, sent: 0 });
  }

  /** Its answer ended (settled or abandoned): frames that still come are not its. */
  close(requestId: string): void {
    this.answers.delete(requestId);
  }

  has(requestId: string): boolean {
    return this.answers.has(requestId);
  }

  /** Hands the frame to its request's HTTP answer; false when the request is not served here (a bus request). */
  deliver(frame: ReplyFrame): boolean {
    const answer = this.answers.get(frame.requestId);
    if (answer === undefined) return false;
    switch (frame.type) {
      case 'tokens':
        // `generated` counts the attempt's tokens so far: the answer writes those it lacks.
        this.write(answer, (frame.generated ?? answer.sent + frame.count) - answer.sent);
        return true;
      case 'end':
        // The completing step's tokens ride in the end frame (the worker sends no tokens frame for them).
        this.write(answer, frame.outputTokens - answer.sent);
        answer.exchange.onEnd({ instance: frame.instanceId, priority: 0, timings: frame.timings, holders: { worker: frame.instanceId } }, frame.cachedTokens);
        this.close(frame.requestId);
        return true;
      case 'error':
        answer.exchange.fail(frame.reason, frame.message, retryAfterSecondsOf(frame.reason, frame.retryAfterMs));
        this.close(frame.requestId);
        return true;
      default: {
        const unhandled: never = frame;
        throw new Error(`unhandled frame ${JSON.stringify(unhandled)}`);
      }
    }
  }

  private write(answer: DirectAnswer, count: number): void {
    if (count <= 0) return;
    answer.sent += count;
    answer.exchange.onTokens(count);
  }
}
