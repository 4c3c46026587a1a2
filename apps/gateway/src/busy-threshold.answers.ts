import type { ControlAnswer } from '@sluice/bus';
import { BusyThresholdEntrySchema, type ApiError, type BusyThresholdEntry } from '@sluice/contracts';
import { apiError } from '@sluice/openai';

/**
 * What `POST /busy_threshold` answers from the admission replicas' answers: 200 with the entry
 * when every replica applied it alike; 400 naming the field when every one refused it (the request
 * is wrong); 409 when they disagree (some applied it and some refused, or they now hold different
 * thresholds), since part of the cluster would then shed by other thresholds than the rest: the
 * change is not in effect as asked, and a 200 would say it is. No answer at all is 503.
 */
export function busyThresholdAnswer(answers: readonly ControlAnswer[]): { readonly status: number; readonly body: BusyThresholdEntry | ApiError } {
  if (answers.length === 0) return { status: 503, body: apiError('no admission service answered', 'service_unavailable', null, 503) };
  const refusals = answers.flatMap((a) => (a.ok ? [] : [a.message]));
  const applied = answers.flatMap((a) => (a.ok ? [BusyThresholdEntrySchema.parse(a.result)] : []));
  const first = applied[0];
  if (first === undefined) {
    // The admission service names the field first (`model: unknown model …`).
    const message = refusals[0]!;
    const param = /^(\w+):/.exec(message)?.[1] ?? null;
    return { status: 400, body: apiError(message, 'invalid_request_error', param, 400) };
  }
  const differ = applied.some((entry) => JSON.stringify(entry) !== JSON.stringify(first));
  if (refusals.length === 0 && !differ) return { status: 200, body: first };
  const why = refusals.length > 0 ? `${refusals.length} refused it (${refusals[0]})` : 'they now hold different thresholds';
  const message = `not in effect as asked: the admission replicas disagree: ${applied.length} of ${answers.length} applied the change and ${why}; align them with \`sluice admission get\` and \`sluice admission set\``;
  return { status: 409, body: apiError(message, 'conflict', null, 409) };
}
