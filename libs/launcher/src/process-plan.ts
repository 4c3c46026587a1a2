import type { SluiceConfig } from '@sluice/config';
import { ClusterStartError } from './cluster-errors.js';
import { SERVICE_CONFIG_KEYS, type ServiceName } from './services.js';

/** One process the launcher will run, and the port it will serve on. */
export interface PlannedProcess {
  /** The service's name, or `worker-<i>` for each of the `worker.processes` worker processes. */
  readonly name: string;
  readonly service: ServiceName;
  readonly host: string;
  readonly port: number;
  /** The launcher chose the port (port 0 in the config): losing it to another process is a race, worth a retry. */
  readonly picked: boolean;
  /** Flags for this process only, after the shared ones (of a key given twice, the last wins). */
  readonly args: readonly string[];
}

export interface ProcessPlan {
  readonly processes: readonly PlannedProcess[];
  /** The flags every process gets: the caller's plus the ports chosen for port 0. */
  readonly sharedArgs: readonly string[];
}

/** `worker-0`, `worker-1`, …: even a single worker process is numbered, so names do not change with the count. */
export function workerProcessName(index: number): string {
  return `worker-${index}`;
}

/** A stage's processes: `router` alone, `router-0`, `router-1`, … with `replicas` > 1; workers always numbered. */
export function processName(service: ServiceName, index: number, count: number): string {
  if (service === 'worker') return workerProcessName(index);
  return count === 1 ? service : `${service}-${index}`;
}

/** How many processes of `service` the config asks for: `worker.processes`, a stage's `replicas`, one autoscaler (two would undo each other's decisions). */
export function processCount(service: ServiceName, config: SluiceConfig): number {
  if (service === 'worker') return config.worker.processes;
  if (service === 'autoscaler') return 1;
  return config[SERVICE_CONFIG_KEYS[service]].replicas;
}

/** Hands out `count` distinct free ports on `host` (net.freePorts; tests pass a fake). */
export type PickPorts = (count: number, host: string) => Promise<number[]>;

/**
 * The processes of `services`, in that order, with their ports: a service's configured port, or
 * a free one for port 0, written back into `config` (so the caller and the services agree on it)
 * and passed on as a shared flag. The worker runs `worker.processes` processes (worker-i on
 * `worker.port + i`) and every other stage `replicas` (the first on the stage's port, the others on
 * free ports); with port 0 every one takes a free port. Each one past the first gets its own
 * `--<section>.port` flag.
 */
export async function planProcesses(services: readonly ServiceName[], config: SluiceConfig, args: readonly string[], pickPorts: PickPorts): Promise<ProcessPlan> {
  const sharedArgs = [...args];
  const counts = services.map((service) => processCount(service, config));

  // All free ports of one host in one call, so they are distinct. A stage's replicas past the
  // first always take free ones: the default ports are consecutive (9101–9104), so `port + i`
  // would run into the next service's. Worker processes keep `worker.port + i`.
  const freeCount = (service: ServiceName, port: number, count: number): number => (port === 0 ? count : service === 'worker' ? 0 : count - 1);
  const wanted = new Map<string, number>();
  services.forEach((service, i) => {
    const { host, port } = config[SERVICE_CONFIG_KEYS[service]];
    const needed = freeCount(service, port, counts[i] ?? 1);
    if (needed > 0) wanted.set(host, (wanted.get(host) ?? 0) + needed);
  });
  const free = new Map<string, number[]>();
  for (const [host, count] of wanted) free.set(host, await pickPorts(count, host));
  const take = (host: string): number => {
    const port = free.get(host)?.shift();
    if (port === undefined) throw new Error(`no free port left on ${host}`);
    return port;
  };

  const processes: PlannedProcess[] = [];
  services.forEach((service, i) => {
    const key = SERVICE_CONFIG_KEYS[service];
    const section = config[key];
    const { host } = section;
    const allPicked = section.port === 0;
    const count = counts[i] ?? 1;
    const ports = Array.from({ length: count }, (_, p) => {
      if (allPicked) return { port: take(host), picked: true };
      if (p === 0 || service === 'worker') return { port: section.port + p, picked: false };
      return { port: take(host), picked: true };
    });
    const first = ports[0]?.port ?? 0;
    if (allPicked) {
      section.port = first;
      sharedArgs.push(`--${key}.port=${first}`);
    }
    ports.forEach(({ port, picked }, p) => {
      const name = processName(service, p, count);
      processes.push({ name, service, host, port, picked, args: p === 0 ? [] : [`--${key}.port=${port}`] });
    });
  });
  checkDistinct(processes);
  return { processes, sharedArgs };
}

/** worker.port + i may run past the last port, or into another service's port on the same address. */
function checkDistinct(processes: readonly PlannedProcess[]): void {
  const byAddress = new Map<string, PlannedProcess>();
  for (const proc of processes) {
    if (proc.port > 65_535) {
      throw new ClusterStartError(
        `${proc.name} would listen on port ${proc.port} (worker.port + its index), past 65535; choose a lower worker.port or 0 (free ports)`,
        proc.service,
        [],
        { process: proc.name },
      );
    }
    const address = `${proc.host}:${proc.port}`;
    const other = byAddress.get(address);
    if (other) {
      throw new ClusterStartError(
        `${proc.name} and ${other.name} would both listen on ${address}` +
          `${proc.service === 'worker' || other.service === 'worker' ? ' (worker-i listens on worker.port + i)' : ''}; ` +
          'give them distinct ports, or 0 for free ones',
        proc.service,
        [],
        { process: proc.name },
      );
    }
    byAddress.set(address, proc);
  }
}
