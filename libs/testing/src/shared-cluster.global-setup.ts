import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { SHARED_CLUSTER_ARGS, type SharedCluster } from './shared-cluster-settings.js';

/** Runs the cluster in a process of its own, from the build (vitest's process cannot load the services' sources). */
const HOST = fileURLToPath(new URL('../../../tools/test-cluster-host.mjs', import.meta.url));
/** Six processes starting on a busy 2-core machine, then the host's own start-up. */
const START_TIMEOUT_MS = 100_000;

/**
 * The `integration-shared` project's global set-up: starts the shared cluster before its first
 * file and stops it after the run. vitest runs this only when a file of that project is selected.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const host = spawn(process.execPath, [HOST, JSON.stringify(SHARED_CLUSTER_ARGS)], { stdio: ['pipe', 'pipe', 'pipe'] });
  // A host that died already makes closing its stdin fail (EPIPE): nothing left to stop then.
  host.stdin.on('error', () => undefined);
  let stderr = '';
  host.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(host, 'exit');
  const lines = createInterface({ input: host.stdout });
  const timer = setTimeout(() => host.kill('SIGTERM'), START_TIMEOUT_MS);
  try {
    const [line] = (await Promise.race([once(lines, 'line'), exited.then(() => [undefined])])) as [string | undefined];
    if (line === undefined) throw new Error(`the shared cluster did not start (exit ${host.exitCode ?? host.signalCode}):\n${stderr}`);
    project.provide('sharedCluster', JSON.parse(line) as SharedCluster);
  } finally {
    clearTimeout(timer);
  }
  return async () => {
    // Closing its stdin tells the host to stop the cluster; it exits once everything has.
    host.stdin.end();
    await exited;
  };
}
