import { formatFieldIssue } from '@sluice/contracts';

/**
 * What a BLIS TraceV2 trace's CSV holds, and how a problem in a trace is named; the format itself
 * is described in trace-v2.ts.
 */

/** The CSV columns BLIS always writes, in its order. */
export const TRACE_V2_COLUMNS = [
  'request_id',
  'client_id',
  'tenant_id',
  'slo_class',
  'session_id',
  'round_index',
  'prefix_group',
  'prefix_length',
  'streaming',
  'input_tokens',
  'output_tokens',
  'text_tokens',
  'image_tokens',
  'audio_tokens',
  'video_tokens',
  'reason_ratio',
  'model',
  'deadline_us',
  'server_input_tokens',
  'arrival_time_us',
  'send_time_us',
  'first_chunk_time_us',
  'last_chunk_time_us',
  'num_chunks',
  'status',
  'error_message',
  'finish_reason',
] as const;

/** Columns BLIS writes only when some row needs them. */
export const TRACE_V2_OPTIONAL_COLUMNS = ['vllm_priority', 'slo_target_us', 'x_request_id', 'adapter'] as const;

/** One CSV row, as parsed (optional columns are absent when the trace lacks them). */
export interface TraceV2Record {
  requestId: number;
  clientId: string;
  /** The `tenant_id` column. */
  fairnessId: string;
  sloClass: string;
  vllmPriority?: number;
  sessionId: string;
  roundIndex: number;
  prefixGroup: string;
  prefixLength: number;
  streaming: boolean;
  /** The prompt minus the shared prefix. */
  inputTokens: number;
  outputTokens: number;
  textTokens: number;
  imageTokens: number;
  audioTokens: number;
  videoTokens: number;
  reasonRatio: number;
  model: string;
  deadlineUs: number;
  sloTargetUs?: number;
  serverInputTokens: number;
  arrivalTimeUs: number;
  sendTimeUs: number;
  firstChunkTimeUs: number;
  lastChunkTimeUs: number;
  numChunks: number;
  status: string;
  errorMessage: string;
  finishReason: string;
  xRequestId?: string;
  adapter?: string;
}

/** One problem: in a row (1 = the first data row; 0 = the CSV header row) and column, or a header key. */
export interface TraceV2Issue {
  row?: number;
  column?: string;
  key?: string;
  /** Position of a request passed to exportTraceV2. */
  request?: number;
  message: string;
}

export function formatTraceV2Issue(issue: TraceV2Issue): string {
  const where: string[] = [];
  if (issue.key !== undefined) where.push(`header key ${issue.key}`);
  if (issue.request !== undefined) where.push(`request ${issue.request}`);
  if (issue.row !== undefined) where.push(issue.row === 0 ? 'header row' : `row ${issue.row}`);
  if (issue.column !== undefined) where.push(`column ${issue.column}`);
  return formatFieldIssue({ path: where.join(', '), message: issue.message });
}

/** Problems reported at most, so a broken file of a million rows gives a readable error. */
export const MAX_REPORTED_ISSUES = 50;

/** A trace that does not parse or validate; `issues` lists the problems (the first 50). */
export class TraceV2Error extends Error {
  constructor(readonly issues: readonly TraceV2Issue[]) {
    super(`invalid TraceV2 trace:\n${issues.map((i) => `  ${formatTraceV2Issue(i)}`).join('\n')}`);
    this.name = 'TraceV2Error';
  }
}

/** The shared prefix of a client's requests. */
export interface TracePrefix {
  group: string;
  length: number;
}
