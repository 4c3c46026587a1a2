import type { ServerResponse } from 'node:http';
import { contentTypeOf, metricsFormatOf, PROMETHEUS_TEXT_CONTENT_TYPE, type MetricsPage } from '@sluice/telemetry';

/** The Prometheus text format sluice serves unless a scraper asks for OpenMetrics (0.0.4). */
export const METRICS_CONTENT_TYPE = PROMETHEUS_TEXT_CONTENT_TYPE;

/** Resolves once the socket takes more (or is gone). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Sends the page chunk by chunk as it is written, waiting for the socket to drain when it is full.
 * Handing the whole page to the framework instead (Express's `res.send`) held the event loop for
 * the page at once: the string made into one buffer, hashed for an ETag no scraper sends back
 * (SHA-1 over 1.4 MB on the gateway, 17 MB at the flow controller's cap), then written. A render
 * that fails before its first chunk throws (the framework answers 500); one that fails later cuts
 * the connection, so the scraper sees a failed scrape rather than half a page.
 *
 * The format follows the scrape's `Accept` header: OpenMetrics 1.0 (with exemplars) when asked for
 * by name, as Prometheus does, else the 0.0.4 text. `Vary: Accept` tells a cache between them so.
 */
export async function sendMetricsPage(page: MetricsPage, res: ServerResponse, accept?: string): Promise<void> {
  const format = metricsFormatOf(accept);
  const chunks = page.chunks(format);
  let next = await chunks.next();
  res.statusCode = 200;
  res.setHeader('content-type', contentTypeOf(format));
  res.setHeader('vary', 'Accept');
  try {
    while (next.done !== true) {
      if (res.destroyed) {
        await chunks.return(undefined);
        return;
      }
      if (!res.write(next.value)) await drained(res);
      next = await chunks.next();
    }
    res.end();
  } catch (error) {
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}
