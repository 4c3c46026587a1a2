import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '@sluice/launcher';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `sluice` CLI as a child process, as a user would, and collects its output. */
export function runSluice(args: readonly string[], options: { env?: NodeJS.ProcessEnv; rootDir?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  const main = join(options.rootDir ?? REPO_ROOT, 'apps', 'cli', 'dist', 'main.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { env: { ...process.env, NO_COLOR: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
