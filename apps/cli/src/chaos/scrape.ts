import type { ProcessScrape } from './books/service-books.js';
import type { ChaosProcess } from './chaos-target.js';
import { parseSamples, type Sample } from './books/prometheus-text.js';

/** A service's /metrics, or undefined when it does not answer within `timeoutMs` (paused, restarting, not published). */
export async function scrapeMetrics(url: string | undefined, timeoutMs = 1_000): Promise<Sample[] | undefined> {
  if (url === undefined) return undefined;
  try {
    const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    return parseSamples(await res.text());
  } catch {
    return undefined;
  }
}

/** Every process's /metrics at one moment, with who it was (pid, restarts) at that moment. */
export async function scrapeAll(processes: readonly ChaosProcess[]): Promise<ProcessScrape[]> {
  return Promise.all(processes.map(async (p) => ({ name: p.name, service: p.service, id: p.id, restarts: p.restarts, samples: await scrapeMetrics(p.url) })));
}
