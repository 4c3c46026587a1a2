import { SLO_TTFT_MS_MAX } from '@sluice/contracts';
import { SLO_CLASSES } from './spec.js';
import type { TraceV2Issue, TraceV2Record } from './trace-v2-format.js';

/**
 * One CSV row of a trace read into a TraceV2Record, every problem noted with its row and column
 * rather than thrown, so one error lists them all. Numbers and booleans are read as Go's strconv
 * reads them; an empty slo_class is allowed (it imports as 'standard'), any other must be one of
 * SLO_CLASSES; prefix_length > 0 needs a prefix_group.
 */

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

export class RowReader {
  constructor(
    private readonly fields: readonly string[],
    private readonly columns: ReadonlyMap<string, number>,
    private readonly row: number,
    private readonly issues: TraceV2Issue[],
  ) {}

  has(column: string): boolean {
    return this.columns.has(column);
  }

  text(column: string): string {
    return this.fields[this.columns.get(column)!] ?? '';
  }

  fail(column: string, message: string): void {
    this.issues.push({ row: this.row, column, message });
  }

  /** An integer >= 0 (BLIS rejects negatives for all of these but round_index and the times). */
  int(column: string): number {
    const raw = this.text(column).trim();
    if (!NUMBER.test(raw)) {
      this.fail(column, raw === '' ? 'is empty, expected an integer' : `not a number ('${raw}')`);
      return 0;
    }
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || !/^[+-]?\d+$/.test(raw)) this.fail(column, `must be an integer ('${raw}')`);
    else if (value < 0) this.fail(column, `must be >= 0 (${raw})`);
    return value;
  }

  ratio(column: string): number {
    const raw = this.text(column).trim();
    if (!NUMBER.test(raw)) {
      this.fail(column, raw === '' ? 'is empty, expected a number' : `not a number ('${raw}')`);
      return 0;
    }
    const value = Number(raw);
    if (!(value >= 0 && value <= 1)) this.fail(column, `must be in [0, 1] ('${raw}')`);
    return value;
  }

  bool(column: string): boolean {
    const raw = this.text(column).trim();
    if (GO_TRUE.has(raw)) return true;
    if (!GO_FALSE.has(raw)) this.fail(column, `not a boolean ('${raw}'), expected true or false`);
    return false;
  }
}

export function readRecord(r: RowReader): TraceV2Record {
  const record: TraceV2Record = {
    requestId: r.int('request_id'),
    clientId: r.text('client_id'),
    fairnessId: r.text('tenant_id'),
    sloClass: r.text('slo_class').trim(),
    sessionId: r.text('session_id'),
    roundIndex: r.int('round_index'),
    prefixGroup: r.text('prefix_group'),
    prefixLength: r.int('prefix_length'),
    streaming: r.bool('streaming'),
    inputTokens: r.int('input_tokens'),
    outputTokens: r.int('output_tokens'),
    textTokens: r.int('text_tokens'),
    imageTokens: r.int('image_tokens'),
    audioTokens: r.int('audio_tokens'),
    videoTokens: r.int('video_tokens'),
    reasonRatio: r.ratio('reason_ratio'),
    model: r.text('model'),
    deadlineUs: r.int('deadline_us'),
    serverInputTokens: r.int('server_input_tokens'),
    arrivalTimeUs: r.int('arrival_time_us'),
    sendTimeUs: r.int('send_time_us'),
    firstChunkTimeUs: r.int('first_chunk_time_us'),
    lastChunkTimeUs: r.int('last_chunk_time_us'),
    numChunks: r.int('num_chunks'),
    status: r.text('status'),
    errorMessage: r.text('error_message').trim(),
    finishReason: r.text('finish_reason').trim(),
  };
  if (r.has('vllm_priority')) record.vllmPriority = r.int('vllm_priority');
  if (r.has('slo_target_us')) {
    record.sloTargetUs = r.int('slo_target_us');
    // It travels as x-slo-ttft-ms, which the gateway bounds.
    if (record.sloTargetUs > SLO_TTFT_MS_MAX * 1000) r.fail('slo_target_us', `must be at most ${SLO_TTFT_MS_MAX * 1000} µs (an hour), the bound of x-slo-ttft-ms (${record.sloTargetUs})`);
  }
  if (r.has('x_request_id')) record.xRequestId = r.text('x_request_id').trim();
  if (r.has('adapter')) record.adapter = r.text('adapter').trim();
  if (record.sloClass !== '' && !(SLO_CLASSES as readonly string[]).includes(record.sloClass))
    r.fail('slo_class', `must be one of ${SLO_CLASSES.join(' | ')} or empty ('${record.sloClass}')`);
  if (record.deadlineUs > 0 && record.arrivalTimeUs > 0 && record.deadlineUs < record.arrivalTimeUs)
    r.fail('deadline_us', `${record.deadlineUs} precedes arrival_time_us ${record.arrivalTimeUs}`);
  if (record.prefixGroup === '' && record.prefixLength > 0) r.fail('prefix_length', `must be 0 without a prefix_group (${record.prefixLength})`);
  return record;
}
