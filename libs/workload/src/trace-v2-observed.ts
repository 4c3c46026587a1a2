/**
 * The observed columns of a TraceV2 row: what became of a request that ran (live or in the twin),
 * as BLIS writes them when it records (`blis observe`) or replays a trace. Pure.
 *
 * Taken from BLIS (sim/workload/tracev2.go, cmd/replay): status is "ok", "error" or "timeout";
 * first_chunk_time_us and last_chunk_time_us are on the clock of arrival_time_us (so TTFT is
 * first_chunk_time_us - send_time_us); finish_reason is the server's ("stop", "length", "abort").
 *
 * In BLIS parity mode the twin gives BLIS's last-chunk time (first token + ΣITL after the last
 * preemption: sim/workload/tracev2.go RequestsToTraceRecords at
 * b563c4405b7847eaf682c6d603065c1faca3ca03), which leaves out the time lost to preemption; the
 * wall-clock end stays in the run's record (report.json `endMs`).
 *
 * Designed here: one streamed token is one chunk (sluice's gateway sends one token per chunk);
 * a completed request finished by length (the client asks for ignore_eos, so it always reaches
 * max_tokens); a request that ended after some tokens without completing was aborted; a request
 * still in flight at the end of the run has an empty status, as a row that has not run.
 */

/** What a run recorded of one request: a structural subset of a run record (ms since the run started). */
export interface TraceV2Observation {
  /** completed | rejected | dropped | failed | in_flight. */
  readonly outcome: string;
  readonly reason?: string;
  readonly firstTokenMs?: number;
  readonly endMs?: number;
  readonly tokenTimesMs?: readonly number[];
  readonly outputTokens: number;
  /**
   * BLIS's own last-chunk time, where the run knows it (BLIS parity mode in the twin): first token
   * + BLIS's ITL sum after the last preemption. It wins over the last token's wall-clock time.
   */
  readonly blisLastChunkMs?: number;
}

export type TraceV2ObservedColumn = 'first_chunk_time_us' | 'last_chunk_time_us' | 'num_chunks' | 'status' | 'error_message' | 'finish_reason';

const us = (ms: number | undefined): string => (ms === undefined ? '0' : String(Math.round(ms * 1000)));

/** The six observed columns of one request's row, as CSV field texts. */
export function traceV2ObservedColumns(o: TraceV2Observation): Record<TraceV2ObservedColumn, string> {
  const ended = o.outcome !== 'in_flight';
  const completed = o.outcome === 'completed';
  // BLIS's definition where the run gave it; else the last token's time when the client kept them
  // all; else the end of a stream that had a first token.
  const lastChunkMs = o.blisLastChunkMs ?? o.tokenTimesMs?.at(-1) ?? (o.firstTokenMs === undefined ? undefined : (o.endMs ?? o.firstTokenMs));
  const reason = o.reason ?? 'unspecified';
  return {
    first_chunk_time_us: us(o.firstTokenMs),
    last_chunk_time_us: us(lastChunkMs),
    num_chunks: String(o.outputTokens),
    // BLIS's three statuses; sluice's reasons 'timeout' (gateway deadline) and 'body_timeout' are its timeouts.
    status: !ended ? '' : completed ? 'ok' : /timeout/.test(reason) ? 'timeout' : 'error',
    error_message: !ended || completed ? '' : `${o.outcome}: ${reason}`,
    finish_reason: completed ? 'length' : ended && o.outputTokens > 0 ? 'abort' : '',
  };
}
