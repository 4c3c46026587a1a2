import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Registry } from 'prom-client';

/** What prom-client's registry does per family, and the labels it adds (public in its source, absent from its typings). */
interface FamilyWriter {
  getMetricsAsString(metric: unknown): Promise<string>;
  readonly _defaultLabels: Readonly<Record<string, string>>;
}

/** A family that writes its own text in parts (the lean families: labels escaped once per series, not per scrape). */
interface SelfWriting {
  pageParts(defaultLabels: Readonly<Record<string, string>>, seriesPerPart: number): Iterable<string>;
}
const writesItself = (metric: unknown): metric is SelfWriting => typeof (metric as Partial<SelfWriting>).pageParts === 'function';

/**
 * Series of one family written before other work may run: a 1.4 MB gateway page has families of
 * a few hundred histogram series (~16 lines each), a few ms each in one piece.
 */
const SERIES_PER_PART = 32;

/**
 * A registry's `/metrics` page, written so that a scrape does not stall the requests the process
 * serves, and concurrent scrapes cost one render.
 *
 * prom-client's `registry.metrics()` formats every family in one synchronous run once their values
 * are collected: at the flow controller's 1,000-flow cap (a 17.4 MB page) that held the event loop
 * for 0.4–0.8 s, and requests sent meanwhile took p50 254–354 ms instead of 31 ms; eight scrapes at
 * once did the work eight times. Here each family is written in turn with a yield to the event loop
 * between them (and within a lean family, every 32 series), so pending requests run in between;
 * and every scrape that arrives while a render is under way gets that render's page (single flight). The lean families write their own
 * text from label strings escaped once per series; the rest go through prom-client's per-family
 * writer. The page is byte for byte what `registry.metrics()` writes in the Prometheus text format.
 */
export class MetricsPage {
  private rendering: Promise<string> | undefined;

  constructor(private readonly registry: Registry) {}

  /** The page now, or the one being written if a render is under way. */
  render(): Promise<string> {
    this.rendering ??= this.write().finally(() => {
      this.rendering = undefined;
    });
    return this.rendering;
  }

  private async write(): Promise<string> {
    // OpenMetrics changes counter names and the trailer: left to prom-client (sluice serves 0.0.4).
    if ((this.registry.contentType as string) === Registry.OPENMETRICS_CONTENT_TYPE) return this.registry.metrics();
    const writer = this.registry as unknown as FamilyWriter;
    const families: string[] = [];
    for (const metric of this.registry.getMetricsAsArray()) {
      if (writesItself(metric)) {
        const parts: string[] = [];
        for (const part of metric.pageParts(writer._defaultLabels, SERIES_PER_PART)) {
          parts.push(part);
          await yieldToEventLoop();
        }
        families.push(parts.join('\n'));
      } else {
        families.push(await writer.getMetricsAsString(metric));
        await yieldToEventLoop();
      }
    }
    return `${families.join('\n\n')}\n`;
  }
}
