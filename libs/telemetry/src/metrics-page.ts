import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Registry } from 'prom-client';
import type { MetricsFormat } from './metrics-format.js';
import { promClientFamilyOpenMetrics, type PromClientFamily } from './openmetrics-text.js';

/** What prom-client's registry does per family, and the labels it adds (public in its source, absent from its typings). */
interface FamilyWriter {
  getMetricsAsString(metric: unknown): Promise<string>;
  readonly _defaultLabels: Readonly<Record<string, string>>;
}

/** A family that writes its own text in parts (the lean families: labels escaped once per series, not per scrape). */
interface SelfWriting {
  pageParts(defaultLabels: Readonly<Record<string, string>>, seriesPerPart: number, format: MetricsFormat): Iterable<string>;
}

/** A prom-client family's values: `getForPromString` where it has one (its histograms), as prom-client's registry reads them. */
interface PromClientMetric {
  get(): Promise<PromClientFamily> | PromClientFamily;
  getForPromString?(): Promise<PromClientFamily>;
}
const writesItself = (metric: unknown): metric is SelfWriting => typeof (metric as Partial<SelfWriting>).pageParts === 'function';

/**
 * Series of one family written before other work may run: a 1.4 MB gateway page has families of
 * a few hundred histogram series (~16 lines each), a few ms each in one piece.
 */
const SERIES_PER_PART = 32;

/** One render under way: the page's chunks written so far, read by every scrape that joined it. */
class Render {
  readonly chunks: string[] = [];
  done = false;
  failure: { readonly error: unknown } | undefined;
  private wake: (() => void) | undefined;
  private next: Promise<void> | undefined;

  push(chunk: string): void {
    this.chunks.push(chunk);
    this.notify();
  }

  end(failure?: { readonly error: unknown }): void {
    this.done = true;
    this.failure = failure;
    this.notify();
  }

  /** Resolves at the next chunk or the end. */
  more(): Promise<void> {
    return (this.next ??= new Promise<void>((resolve) => (this.wake = resolve)));
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    this.next = undefined;
    wake?.();
  }
}

/**
 * A registry's `/metrics` page, written so that a scrape does not stall the requests the process
 * serves, and concurrent scrapes cost one render.
 *
 * prom-client's `registry.metrics()` formats every family in one synchronous run once their values
 * are collected: at the flow controller's 1,000-flow cap (a 17.4 MB page) that held the event loop
 * for 0.4–0.8 s, and requests sent meanwhile took p50 254–354 ms instead of 31 ms; eight scrapes at
 * once did the work eight times. Here each family is written in turn with a yield to the event loop
 * between them (and within a lean family, every 32 series), so pending requests run in between;
 * and every scrape that arrives while a render is under way reads that render's chunks (single
 * flight). The page comes out as a sequence of chunks (`chunks()`), so a server can send each part
 * as it is written rather than hold and send the whole page at once. The lean families write their
 * own text from label strings escaped once per series; the rest go through prom-client's
 * per-family writer. The page is byte for byte what `registry.metrics()` writes in the Prometheus
 * text format.
 *
 * In OpenMetrics (`format`, chosen per scrape: metrics-format.ts) the same families come out
 * without blank lines between them and with `# EOF` at the end, the lean families with their
 * exemplars, prom-client's through `promClientFamilyOpenMetrics`. Each format has its own render
 * in flight: a scrape joins the one of its format.
 */
export class MetricsPage {
  private readonly current = new Map<MetricsFormat, Render>();

  constructor(private readonly registry: Registry) {}

  /** The page now, or the one being written if a render is under way, whole. */
  async render(format: MetricsFormat = 'prometheus-text'): Promise<string> {
    const chunks: string[] = [];
    for await (const chunk of this.chunks(format)) chunks.push(chunk);
    return chunks.join('');
  }

  /**
   * The page in chunks as they are written: the one under way if there is one (from its start),
   * else a new render. Throws what a failed render threw, after the chunks written before it.
   */
  async *chunks(format: MetricsFormat = 'prometheus-text'): AsyncGenerator<string> {
    const render = this.current.get(format) ?? this.start(format);
    let read = 0;
    for (;;) {
      while (read < render.chunks.length) yield render.chunks[read++]!;
      if (render.done) {
        if (render.failure) throw render.failure.error;
        return;
      }
      await render.more();
    }
  }

  private start(format: MetricsFormat): Render {
    const render = new Render();
    this.current.set(format, render);
    this.write(render, format).then(
      () => render.end(),
      (error: unknown) => render.end({ error }),
    );
    return render;
  }

  private async write(render: Render, format: MetricsFormat): Promise<void> {
    try {
      const writer = this.registry as unknown as FamilyWriter;
      const defaultLabels = writer._defaultLabels;
      const openMetrics = format === 'openmetrics';
      // 0.0.4: families separated by a blank line and a final newline, as prom-client joins them.
      // OpenMetrics: no separator (the spec has no blank lines) and `# EOF` last.
      let separator = '';
      for (const metric of this.registry.getMetricsAsArray()) {
        if (writesItself(metric)) {
          let partSeparator = separator;
          for (const part of metric.pageParts(defaultLabels, SERIES_PER_PART, format)) {
            render.push(partSeparator + part);
            partSeparator = '\n';
            await yieldToEventLoop();
          }
        } else if (openMetrics) {
          const family = metric as unknown as PromClientMetric;
          const values = await (family.getForPromString?.() ?? family.get());
          render.push(separator + promClientFamilyOpenMetrics(values, defaultLabels));
          await yieldToEventLoop();
        } else {
          const text = await writer.getMetricsAsString(metric);
          render.push(separator + text);
          await yieldToEventLoop();
        }
        separator = openMetrics ? '\n' : '\n\n';
      }
      render.push(openMetrics ? (separator === '' ? '# EOF\n' : '\n# EOF\n') : '\n');
    } finally {
      // A scrape arriving from here on starts a new render.
      if (this.current.get(format) === render) this.current.delete(format);
    }
  }
}
