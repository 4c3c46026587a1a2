import { execFile } from 'node:child_process';

export interface DockerResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the docker CLI; never rejects (a missing binary is code 127). */
export function docker(args: readonly string[], timeoutMs = 30_000): Promise<DockerResult> {
  return new Promise((resolve) => {
    execFile('docker', args, { timeout: timeoutMs, encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
      resolve({ code, stdout: stdout.toString(), stderr: stderr.toString() || (error && !stderr ? error.message : '') });
    });
  });
}

/** True if the docker CLI is installed and its daemon answers (`docker info`). */
export async function dockerCliAvailable(timeoutMs = 10_000): Promise<boolean> {
  return (await docker(['info', '--format', '{{.ServerVersion}}'], timeoutMs)).code === 0;
}
