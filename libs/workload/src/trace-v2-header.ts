import { zodFieldIssues } from '@sluice/contracts';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import { TraceV2Error } from './trace-v2-format.js';

/**
 * A TraceV2 trace's YAML header: its keys as BLIS's struct has them (trace-v2.ts), decoded with
 * unknown keys rejected as BLIS decodes it, and written back in BLIS's key order.
 */

const nonNegative = () => z.number('must be a number').finite().nonnegative('must be >= 0');
const count = () => z.number('must be a number').int('must be an integer').nonnegative('must be >= 0');

const SloDimTargetsSchema = z.strictObject({ ttft_ms: nonNegative().optional(), itl_ms: nonNegative().optional(), e2e_ms: nonNegative().optional() });

export const TraceV2HeaderSchema = z.strictObject({
  /** 2, or 3 once goodput_slo_targets appeared; BLIS tests write both. */
  trace_version: z.union([z.literal(2), z.literal(3)], 'must be 2 or 3'),
  /** BLIS writes microseconds; the *_us columns are in it. */
  time_unit: z.literal('microseconds', "must be 'microseconds'"),
  created_at: z.string('must be a string').optional(),
  /** real (blis observe), generated (blis run), replayed (blis replay). */
  mode: z.enum(['real', 'generated', 'replayed'], 'must be one of real | generated | replayed').optional(),
  /** The first N requests are warm-up. Carried, not acted on. */
  warm_up_requests: count().optional(),
  /** The workload RNG seed; here also the seed for regenerated token ids. */
  workload_seed: z.number('must be a number').int('must be an integer').refine(Number.isSafeInteger, 'must be a safe integer').optional(),
  /** A spec path or "preset:<name>". */
  workload_spec: z.string('must be a string').optional(),
  server: z
    .strictObject({
      type: z.string('must be a string').optional(),
      model: z.string('must be a string').optional(),
      tensor_parallel: count().optional(),
      max_num_seqs: count().optional(),
      block_size: count().optional(),
      gpu_memory_utilization: nonNegative().optional(),
      max_model_len: count().optional(),
    })
    .optional(),
  network: z.strictObject({ measured_rtt_ms: nonNegative().optional() }).optional(),
  goodput_slo_targets: z.record(z.string(), SloDimTargetsSchema).optional(),
});
export type TraceV2Header = z.infer<typeof TraceV2HeaderSchema>;

/** Validates a header object (parsed, or made for export); throws TraceV2Error naming each bad key. */
export function validateHeader(input: unknown): TraceV2Header {
  const result = TraceV2HeaderSchema.safeParse(input);
  if (!result.success) throw new TraceV2Error(zodFieldIssues(result.error, { input }).map(({ path, message }) => ({ key: path, message })));
  return result.data;
}

/** Parses and validates a TraceV2 header (YAML); unknown keys are errors. */
export function parseTraceV2Header(text: string): TraceV2Header {
  let parsed: unknown;
  try {
    parsed = parseYaml(text) as unknown;
  } catch (error) {
    throw new TraceV2Error([{ message: `header is not valid YAML: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new TraceV2Error([{ message: 'header must be a YAML mapping' }]);
  return validateHeader(parsed);
}

/** Header keys in BLIS's struct order. */
const HEADER_ORDER = ['trace_version', 'time_unit', 'created_at', 'mode', 'warm_up_requests', 'workload_seed', 'workload_spec', 'server', 'network', 'goodput_slo_targets'] as const;

/** The header as YAML, keys in BLIS's order. */
export function formatHeader(header: TraceV2Header): string {
  const ordered: Record<string, unknown> = {};
  for (const key of HEADER_ORDER) if (header[key] !== undefined) ordered[key] = header[key];
  return stringifyYaml(ordered);
}
