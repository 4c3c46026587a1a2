import { execFile } from 'node:child_process';
import { docker, type DockerResult } from '@sluice/launcher';

/**
 * A Docker Compose project driven from a test: one project name (so it never touches a user's
 * own `docker compose up`), its files, and the variables its files interpolate. Works with
 * Debian's `docker-compose` 1.29 and with Compose v2 (`docker compose`), whichever is installed.
 */

/** How to invoke Compose: Debian's docker-compose first (what CI installs), else the v2 plugin. */
export async function findCompose(): Promise<readonly string[] | null> {
  for (const command of [['docker-compose'], ['docker', 'compose']]) {
    if ((await run(command, ['version'], { timeoutMs: 15_000 })).code === 0) return command;
  }
  return null;
}

function run(command: readonly string[], args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<DockerResult> {
  const [file = 'docker-compose', ...prefix] = command;
  return new Promise((resolve) => {
    execFile(
      file,
      [...prefix, ...args],
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
        resolve({ code, stdout, stderr: stderr || (error && !stderr ? error.message : '') });
      },
    );
  });
}

export interface ComposeProjectOptions {
  /** From findCompose(). */
  readonly command: readonly string[];
  /** Lowercase letters, digits, `-` and `_` (the one spelling both Compose versions keep as is). */
  readonly project: string;
  readonly files: readonly string[];
  readonly cwd: string;
  /** Variables the compose files interpolate (ports, policies). */
  readonly vars?: Readonly<Record<string, string>>;
}

export class ComposeProject {
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly options: ComposeProjectOptions) {
    // The user's own Compose settings must not leak in: our -p and -f decide, no extra profiles.
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.vars };
    for (const name of ['COMPOSE_PROJECT_NAME', 'COMPOSE_FILE', 'COMPOSE_PROFILES']) delete env[name];
    this.env = env;
  }

  get project(): string {
    return this.options.project;
  }

  /** Runs `compose -p PROJECT -f FILE... ARGS`; never rejects. */
  run(args: readonly string[], timeoutMs = 60_000): Promise<DockerResult> {
    const global = ['-p', this.options.project, ...this.options.files.flatMap((f) => ['-f', f])];
    return run(this.options.command, [...global, ...args], { cwd: this.options.cwd, env: this.env, timeoutMs });
  }

  /** Like run(), but a non-zero exit throws with Compose's output. */
  async runOrThrow(args: readonly string[], timeoutMs = 60_000): Promise<string> {
    const result = await this.run(args, timeoutMs);
    if (result.code !== 0) throw new Error(`compose ${args.join(' ')} exited ${result.code}:\n${result.stderr || result.stdout}`);
    return result.stdout;
  }

  /** The last lines of every container's log, for a failure message. */
  async logs(tail = 30): Promise<string> {
    const result = await this.run(['logs', '--no-color', '--tail', String(tail)], 30_000);
    return result.stdout + result.stderr;
  }

  /** Stops and removes the project's containers, networks and volumes. */
  down(timeoutMs = 120_000): Promise<DockerResult> {
    return this.run(['down', '--volumes', '--remove-orphans', '--timeout', '10'], timeoutMs);
  }
}

/** Every container (running or not), network and volume Compose labelled with this project. */
export async function composeLeftovers(project: string): Promise<string[]> {
  const filter = `label=com.docker.compose.project=${project}`;
  const lists = await Promise.all([
    docker(['ps', '--all', '--filter', filter, '--format', 'container {{.Names}}']),
    docker(['network', 'ls', '--filter', filter, '--format', 'network {{.Name}}']),
    docker(['volume', 'ls', '--filter', filter, '--format', 'volume {{.Name}}']),
  ]);
  const failed = lists.find((l) => l.code !== 0);
  if (failed) throw new Error(`docker could not list the project's resources: ${failed.stderr}`);
  return lists.flatMap((l) => l.stdout.split('\n').filter(Boolean));
}
