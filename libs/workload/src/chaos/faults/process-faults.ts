import type { TwinPlan } from './fault-definition.js';
import { shortId, type ComposeFaultPort, type LocalFaultPort, type ProcessSignal } from './live-ports.js';
import { processName, workerProcessOf } from './process-target.js';
import type { TwinFaultPort } from './twin-port.js';

/** What the faults on one process (kill, terminate, pause) do alike on each side. */

/** Signals the process a target names on a local cluster; resolves to `SIGKILL pid 4711`. */
export async function signalProcess(port: LocalFaultPort, target: string, signal: ProcessSignal): Promise<string> {
  return `${signal} pid ${await port.signal(processName(target), signal)}`;
}

/**
 * `docker kill` (with `--signal TERM` for a graceful stop) of the container a target names, then
 * started again once it has exited, as the local supervisor restarts a process.
 */
export async function dockerKill(port: ComposeFaultPort, target: string, signalArgs: readonly string[] = []): Promise<string> {
  const container = await port.container(processName(target));
  await port.docker(['kill', ...signalArgs, container.id]);
  port.startAgainWhenExited(container);
  return ['docker kill', ...signalArgs, shortId(container)].join(' ');
}

/**
 * A kill or terminate in the twin: only worker processes can die there (its stages cannot: no
 * hand-back of a flow controller's queue at shutdown, no `stage_lost`), and only those it runs.
 */
export function planWorkerProcessFault(action: string, target: string, twin: TwinFaultPort, act: (process: string) => string): TwinPlan {
  const process = workerProcessOf(target);
  if (process === undefined) return { target, notModelled: `${action} of ${target}: the twin's ${target} cannot die (only worker processes can)` };
  if (!twin.workerProcesses.includes(process)) return { target: process, notModelled: `${action} of ${process}: the twin has no ${process} (worker.processes is ${twin.workerProcesses.length})` };
  return { target: process, run: { start: () => act(process) } };
}
