import { sumOf, type Sample } from './prometheus-text.js';

/** One process's /metrics at one moment (before the run, after it). */
export interface ProcessScrape {
  readonly name: string;
  readonly service: string;
  /** pid or container id: a different one means the process was started again. */
  readonly id: string;
  readonly restarts: number;
  /** undefined when its /metrics could not be read. */
  readonly samples: readonly Sample[] | undefined;
}

/**
 * What the processes of one service counted during the run: counters as after − before, summed
 * over the service's processes (every worker process). A process started again during the run
 * lost its counters, so its service's books cannot be read, and say why.
 */
export type ServiceBooks =
  | {
      readonly ok: true;
      /** The counter's increase over the run, over samples whose labels match `where`. */
      count(name: string, where?: Readonly<Record<string, string | readonly string[]>>): number;
      /** A gauge's value at the end, summed. */
      gauge(name: string): number;
    }
  | { readonly ok: false; readonly why: string };

export function serviceBooks(service: string, before: readonly ProcessScrape[], after: readonly ProcessScrape[]): ServiceBooks {
  const processes = after.filter((p) => p.service === service);
  if (processes.length === 0) return { ok: false, why: `no ${service} process` };
  const pairs: { before: readonly Sample[]; after: readonly Sample[] }[] = [];
  for (const p of processes) {
    const earlier = before.find((b) => b.name === p.name);
    if (!earlier || earlier.id !== p.id || earlier.restarts !== p.restarts) return { ok: false, why: `${p.name} restarted` };
    if (!earlier.samples || !p.samples) return { ok: false, why: `${p.name}'s /metrics could not be read` };
    pairs.push({ before: earlier.samples, after: p.samples });
  }
  return {
    ok: true,
    count: (name, where = {}) => pairs.reduce((sum, p) => sum + sumOf(p.after, name, where) - sumOf(p.before, name, where), 0),
    gauge: (name) => pairs.reduce((sum, p) => sum + sumOf(p.after, name), 0),
  };
}
