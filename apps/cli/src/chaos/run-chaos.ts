import { inboxPrefixOf } from '@sluice/contracts';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Bus } from '@sluice/bus';
import { seededRandom } from '@sluice/collections';
import { buildReport, type RunRecord } from '@sluice/metrics';
import { writeRunReports, type ChaosSection, type RunReportFile, type RunReportPaths } from '@sluice/report';
import { generateWorkloadRequests, type FaultRegistry } from '@sluice/workload';
import { BACKOFF_CAP_MS } from '../run/load-client.js';
import { printRunSummary } from '../run/print-run-summary.js';
import { Progress } from '../run/progress.js';
import { runWorkload } from '../run/run-workload.js';
import type { Output, TextStream } from '../terminal/output.js';
import type { ChaosTarget } from './chaos-target.js';
import { busFaultControls, noFaultControls } from './fault-controls.js';
import { FaultExecutor } from './fault-executor.js';
import { faultReports } from './fault-reports.js';
import { GatewayPoller } from './gateway-poller.js';
import { checkInvariants } from './invariants/check-invariants.js';
import type { LoadedScenario } from './load-scenario.js';
import { increaseBy } from './measure/counter-increase.js';
import { printChaosSummary } from './print-chaos-summary.js';
import { scrapeAll, scrapeMetrics } from './scrape.js';
import { Timeline, timelineSteps } from './timeline.js';
import { waitUntil, warmUp } from './warm-up.js';

export interface ChaosRunSettings {
  readonly loaded: LoadedScenario;
  readonly model: string;
  /** gateway.requestTimeoutMs of the cluster (the deadline invariant). */
  readonly requestTimeoutMs: number;
  readonly outDir: string;
  readonly json: boolean;
  /** The faults the scenario may name (createFaultRegistry()): what each does on this target, how it ends, its report line. */
  readonly registry: FaultRegistry;
}

/** How long the end of a run waits for processes a late fault restarted, so their books can be read. */
const SETTLE_TIMEOUT_MS = 15_000;

/**
 * One chaos run against a target: warm up, read every process's books, send the workload as a
 * real client (the `sluice run` client) while the timeline fires the faults, undo what is still
 * undone, read the books again, check the invariants, measure each fault, and write the report
 * with its chaos section.
 */
export async function runChaos(settings: ChaosRunSettings, target: ChaosTarget, out: Output, progressStream: TextStream): Promise<{ report: RunReportFile; paths: RunReportPaths; chaos: ChaosSection }> {
  const { loaded, registry } = settings;
  const needsBus = loaded.faults.some((f) => registry.of(f).byMessage === true);
  // Reconnects forever (waitForServer), so control messages still go out after a NATS restart.
  // It asks; it answers no bus-fault verbs itself (the control identity may not hear them).
  const credentials = target.natsCredentials;
  const bus = needsBus
    ? await Bus.connect({
        url: target.natsUrl,
        name: 'sluice-chaos',
        ackTimeoutMs: 2_000,
        waitForServer: true,
        answerFaultControl: false,
        log: () => undefined,
        ...(credentials ? { credentials, inboxPrefix: inboxPrefixOf('control') } : {}),
      })
    : undefined;
  try {
    const controls = bus ? busFaultControls(bus) : noFaultControls;
    await warmUp(target.gatewayUrl, settings.model);

    const started = performance.now();
    const now = () => performance.now() - started;
    const startedAt = new Date().toISOString();
    const poller = new GatewayPoller(target.gatewayUrl, now);
    await waitUntil(async () => (await poller.read())?.inFlight === 0, 5_000);
    const processesBefore = await target.processes();
    const before = await scrapeAll(processesBefore);

    const requests = generateWorkloadRequests(loaded.spec);
    const executor = new FaultExecutor(registry, target, controls);
    const timeline = new Timeline(timelineSteps(loaded.faults, registry), { now, sleep: (ms) => sleep(ms) }, (step) => executor.execute(loaded.faults[step.fault]!, step.phase));
    let t0: number | undefined;
    const progress = settings.json ? undefined : new Progress(requests.length, progressStream, now);
    progress?.start();
    poller.start();
    const records = await runWorkload(
      requests,
      { gateway: target.gatewayUrl, model: settings.model, retries: loaded.scenario.retries, now, random: seededRandom(loaded.spec.seed), sleep: (ms) => sleep(ms) },
      {
        onSent: () => {
          // The faults' offsets count from the first request.
          if (t0 === undefined) timeline.start((t0 = now()));
          progress?.onSent();
        },
        onRecord: (r) => progress?.onRecord(r),
      },
    );
    const steps = await timeline.finish();
    progress?.stop();

    // Let the gateway settle and a process restarted late come back, so the books can be read.
    await waitUntil(async () => (await poller.read())?.inFlight === 0, 5_000);
    await waitUntil(() => everyProcessAnswers(target), SETTLE_TIMEOUT_MS, 250);
    await poller.stop();
    await poller.read();
    const processesAfter = await target.processes();
    const after = await scrapeAll(processesAfter);

    const readings = [...poller.readings].sort((a, b) => a.tMs - b.tMs);
    const byReason = increaseBy(readings.map((r) => r.migrationsByReason));
    const migrationPoints = readings.map((r) => ({ tMs: r.tMs, value: Object.values(r.migrationsByReason).reduce((a, b) => a + b, 0) }));
    const invariants = checkInvariants({
      records,
      expectedRequests: requests.length,
      before,
      after,
      requestTimeoutMs: settings.requestTimeoutMs,
      retryBackoffCapMs: BACKOFF_CAP_MS,
      maxFailedShare: loaded.scenario.expect.maxFailedShare,
    });
    const faults = faultReports(loaded.faults, steps, t0 ?? 0, records, migrationPoints, registry);
    const chaos: ChaosSection = {
      scenario: { name: loaded.scenario.name, description: loaded.scenario.description, file: loaded.file, scale: loaded.scale },
      target: target.kind,
      t0Ms: t0 ?? 0,
      faults,
      invariants,
      passed: invariants.every((i) => i.status !== 'fail') && faults.every((f) => f.error === null),
      migrations: { total: Object.values(byReason).reduce((a, b) => a + b, 0), byReason },
      outcomesByReason: outcomesByReason(records),
      processesBefore: processesBefore.map(({ name, id, restarts }) => ({ name, id, restarts })),
      processesAfter: processesAfter.map(({ name, id, restarts }) => ({ name, id, restarts })),
    };
    const report: RunReportFile = {
      version: 1,
      tool: 'sluice chaos',
      startedAt,
      gateway: target.gatewayUrl,
      workload: { file: loaded.workloadFile, spec: loaded.spec, requests: requests.length },
      config: target.config,
      summary: buildReport(records, { expectedRequests: requests.length }),
      chaos,
      records,
    };
    const paths = writeRunReports(settings.outDir, report);
    if (settings.json) {
      out.line(JSON.stringify({ report: paths.jsonFile, html: paths.htmlFile, summary: report.summary, chaos: { ...chaos } }));
    } else {
      out.line('');
      printRunSummary(out, report.summary, paths, false);
      printChaosSummary(out, chaos);
    }
    return { report, paths, chaos };
  } finally {
    await bus?.drain().catch(() => undefined);
  }
}

/** `completed`, or `outcome/reason`, with how many requests ended so. */
export function outcomesByReason(records: readonly RunRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of records) {
    const key = r.outcome === 'completed' ? 'completed' : `${r.outcome}/${r.reason ?? 'unspecified'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Every process whose /metrics the host can reach answers it (none is paused or restarting). */
async function everyProcessAnswers(target: ChaosTarget): Promise<boolean> {
  const reachable = (await target.processes()).filter((p) => p.url !== undefined);
  const answers = await Promise.all(reachable.map((p) => scrapeMetrics(p.url)));
  return answers.every((samples) => samples !== undefined);
}
