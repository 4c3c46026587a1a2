import type { Bus } from '@sluice/bus';
import { Counter, type Registry } from '@sluice/telemetry';

const REJECTED = 'sluice_bus_rejected_messages_total';
const HANDLER_ERRORS = 'sluice_bus_handler_errors_total';

/**
 * The bus's own counts (`Bus.rejections`) as metrics, read at scrape time:
 * `sluice_bus_rejected_messages_total{subject,reason}` and `sluice_bus_handler_errors_total{subject}`,
 * `subject` being the subscription's (a pattern such as `sluice.v1.worker.*.done`), so the series
 * are as many as the process's subscriptions however many subjects hostile messages come on.
 */
export function registerBusRejectionMetrics(registry: Registry, bus: Bus): void {
  if (registry.getSingleMetric(REJECTED)) return;
  const rejected: Counter<'subject' | 'reason'> = new Counter({
    name: REJECTED,
    help: 'Bus messages a receiving edge refused (oversized, malformed: not JSON, schema: not what the subject carries, abandoned: a handoff that came after its sender stopped waiting), by subscription subject.',
    labelNames: ['subject', 'reason'],
    registers: [registry],
    collect() {
      rejected.reset();
      for (const { subject, reason, count } of bus.rejections.rejections()) rejected.inc({ subject, reason }, count);
    },
  });
  const failed: Counter<'subject'> = new Counter({
    name: HANDLER_ERRORS,
    help: 'Bus messages that passed the edge and whose handler threw, by subscription subject (0 when every stage copes with what it is sent).',
    labelNames: ['subject'],
    registers: [registry],
    collect() {
      failed.reset();
      for (const { subject, count } of bus.rejections.handlerFailures()) failed.inc({ subject }, count);
    },
  });
}
