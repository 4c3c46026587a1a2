import type { AutoscalerGaugeSample } from '@sluice/report';
import { parseSamples, sumOf } from '../chaos/books/prometheus-text.js';

/** The autoscaler's series a live run reads (docs/metrics.md, "autoscaler"). */
export const AUTOSCALER_SERIES = {
  desired: 'sluice_autoscaler_desired_instances',
  ready: 'sluice_autoscaler_ready_instances',
  starting: 'sluice_autoscaler_starting_instances',
  value: 'sluice_autoscaler_metric_value',
  decisions: 'sluice_autoscaler_decisions_total',
} as const;

/** A reading slower than this is left out: the next one comes anyway. */
const READ_TIMEOUT_MS = 900;

/** The autoscaler's `http://host:port` when the config enables one (its /metrics), else undefined. */
export function autoscalerUrlFromConfig(config: unknown): string | undefined {
  const autoscaler = (config as { autoscaler?: { enabled?: unknown; host?: unknown; port?: unknown } } | null | undefined)?.autoscaler;
  if (autoscaler?.enabled !== true || typeof autoscaler.port !== 'number' || autoscaler.port === 0) return undefined;
  const host = typeof autoscaler.host !== 'string' || autoscaler.host === '0.0.0.0' || autoscaler.host === '::' ? '127.0.0.1' : autoscaler.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${autoscaler.port}`;
}

/**
 * One /metrics page read into a sample, or undefined when a size is missing (never a zero in its
 * place). The metric's value exists only from the first decision on; a counter that never grew may
 * have no sample yet, and 0 is then its value.
 */
export function readGaugeSample(text: string, atMs: number): AutoscalerGaugeSample | undefined {
  const samples = parseSamples(text);
  const names = new Set(samples.map((s) => s.name));
  const { desired, ready, starting, value, decisions } = AUTOSCALER_SERIES;
  if (![desired, ready, starting].every((name) => names.has(name))) return undefined;
  return {
    atMs,
    desired: sumOf(samples, desired),
    ready: sumOf(samples, ready),
    starting: sumOf(samples, starting),
    ...(names.has(value) && { value: sumOf(samples, value) }),
    decisions: sumOf(samples, decisions),
  };
}

/**
 * Reads the autoscaler's /metrics every `everyMs` while a live run lasts: the run's instance
 * timeline when it cannot follow the bus. Each reading is timed when its page arrived, in the
 * records' time base (`now`).
 */
export class AutoscalerGaugeSampler {
  private readonly samples: AutoscalerGaugeSample[] = [];
  private readonly timer: NodeJS.Timeout;
  private pending = new Set<Promise<void>>();
  private failures = 0;

  private constructor(
    private readonly url: string,
    private readonly now: () => number,
    readonly everyMs: number,
  ) {
    this.timer = setInterval(() => this.read(), everyMs);
    this.read();
  }

  static start(url: string, now: () => number, everyMs = 1_000): AutoscalerGaugeSampler {
    return new AutoscalerGaugeSampler(url, now, everyMs);
  }

  /** Stops reading (after a last reading); the readings in time order, or why there are none. */
  async stop(): Promise<{ readonly samples: readonly AutoscalerGaugeSample[] } | { readonly why: string }> {
    clearInterval(this.timer);
    this.read();
    await Promise.all(this.pending);
    if (this.samples.length === 0) return { why: `the autoscaler at ${this.url} gave no reading of its gauges (${this.failures} tries)` };
    return { samples: [...this.samples].sort((a, b) => a.atMs - b.atMs) };
  }

  private read(): void {
    const reading = (async () => {
      try {
        const res = await fetch(`${this.url}/metrics`, { signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
        const sample = res.ok ? readGaugeSample(await res.text(), this.now()) : undefined;
        if (sample) this.samples.push(sample);
        else this.failures++;
      } catch {
        this.failures++;
      }
    })();
    this.pending.add(reading);
    void reading.finally(() => this.pending.delete(reading));
  }
}
