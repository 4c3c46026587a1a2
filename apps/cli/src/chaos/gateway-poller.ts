import { setTimeout as sleep } from 'node:timers/promises';
import { sumBy, sumOf } from './books/prometheus-text.js';
import { scrapeMetrics } from './scrape.js';

/** One reading of the gateway's counters during the run (run clock). */
export interface GatewayReading {
  readonly tMs: number;
  readonly migrationsByReason: Readonly<Record<string, number>>;
  readonly inFlight: number;
}

/**
 * Reads the gateway's /metrics every `intervalMs` while the run goes: the migrations counter over
 * time, for time-to-detect and for the migrations of a run whose gateway was started again (its
 * counter restarted from 0). A reading the gateway does not answer (paused, restarting) is left out.
 */
export class GatewayPoller {
  readonly readings: GatewayReading[] = [];
  private running = true;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly gatewayUrl: string,
    private readonly now: () => number,
    private readonly intervalMs = 250,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** One reading now (also used before and after the run); undefined when the gateway does not answer. */
  async read(): Promise<GatewayReading | undefined> {
    const samples = await scrapeMetrics(this.gatewayUrl);
    if (!samples) return undefined;
    const reading = { tMs: this.now(), migrationsByReason: sumBy(samples, 'sluice_migrations_total', 'reason'), inFlight: sumOf(samples, 'sluice_requests_in_flight') };
    this.readings.push(reading);
    return reading;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      await this.read();
      await sleep(this.intervalMs);
    }
  }
}
