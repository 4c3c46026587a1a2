import { engineSection, type EngineInstanceCounters, type EngineSection } from '@sluice/report';
import { engineCountersBetween, readWorkerScrape, type WorkerScrape } from './engine-counters-diff.js';

/** A worker that does not answer this fast is left out: the report must not wait on it. */
const SCRAPE_TIMEOUT_MS = 2_000;

/**
 * The workers' /metrics as a config describes them: worker-0 on `worker.port`, worker-i on
 * `worker.port + i` (how `sluice up` places them unless the port is 0, libs/launcher's process
 * plan). A `sluice up` that picked free ports lists its processes in .sluice/cluster.json: pass
 * those instead (RunSettings.workerUrls).
 */
export function workerUrlsFromConfig(config: unknown): string[] {
  const worker = (config as { worker?: { host?: unknown; port?: unknown; processes?: unknown } } | null | undefined)?.worker;
  if (typeof worker?.port !== 'number' || worker.port === 0) return [];
  const host = typeof worker.host !== 'string' || worker.host === '0.0.0.0' || worker.host === '::' ? '127.0.0.1' : worker.host;
  const processes = typeof worker.processes === 'number' && worker.processes > 0 ? worker.processes : 1;
  return Array.from({ length: processes }, (_, i) => `http://${host.includes(':') ? `[${host}]` : host}:${(worker.port as number) + i}`);
}

/** Each worker's /metrics now, or undefined where it did not answer. */
async function scrape(urls: readonly string[]): Promise<(WorkerScrape | undefined)[]> {
  return Promise.all(
    urls.map(async (url) => {
      try {
        const res = await fetch(`${url.replace(/\/$/, '')}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
        return res.ok ? readWorkerScrape(await res.text()) : undefined;
      } catch {
        return undefined;
      }
    }),
  );
}

/**
 * The engine counters of a live run: a scrape of every worker before the run and one after, so
 * the section covers the run only (the workers' counters run from their start). Other traffic at
 * the same time counts too.
 */
export class EngineCounterScrape {
  private constructor(
    private readonly urls: readonly string[],
    private readonly before: readonly (WorkerScrape | undefined)[],
  ) {}

  static async start(urls: readonly string[]): Promise<EngineCounterScrape> {
    return new EngineCounterScrape(urls, await scrape(urls));
  }

  /**
   * The section, or why there is none: a worker counts only if it answered both times, and with no
   * such worker the report has no section (zeros would read as a run that preempted nothing).
   */
  async finish(): Promise<{ readonly section: EngineSection } | { readonly why: string }> {
    if (this.urls.length === 0) return { why: 'no worker address known (no cluster.json processes, and worker.port is 0)' };
    const after = await scrape(this.urls);
    const instances: EngineInstanceCounters[] = [];
    let answered = 0;
    for (const [i, now] of after.entries()) {
      const then = this.before[i];
      if (now === undefined || then === undefined) continue;
      answered++;
      instances.push(...engineCountersBetween(then, now));
    }
    if (answered === 0) return { why: `no worker /metrics answered before and after the run (${this.urls.join(', ')})` };
    return { section: engineSection(instances, 'prompt-tokens') };
  }
}
