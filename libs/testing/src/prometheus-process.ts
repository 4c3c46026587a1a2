import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@sluice/launcher';
import { eventually } from './probes.js';

/** A real Prometheus server (the `prometheus` binary CI installs from Debian) scraping given targets. */
export interface PrometheusProcess {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts `prometheus` with one scrape job per entry of `jobs` (job name → `host:port` targets),
 * scraping every `scrapeIntervalS` seconds into a throw-away TSDB, and waits until it answers.
 * `features` are its `--enable-feature` flags (e.g. `exemplar-storage`); `ruleFiles` the rule
 * files it evaluates (absolute paths or globs), every scrape interval.
 */
export async function startPrometheus(
  jobs: Readonly<Record<string, readonly string[]>>,
  scrapeIntervalS = 1,
  features: readonly string[] = [],
  ruleFiles: readonly string[] = [],
): Promise<PrometheusProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-prometheus-'));
  const config = [
    'global:',
    // In ms: Prometheus durations take whole units only, and a test may scrape faster than 1 s.
    `  scrape_interval: ${Math.round(scrapeIntervalS * 1000)}ms`,
    `  evaluation_interval: ${Math.round(scrapeIntervalS * 1000)}ms`,
    ...(ruleFiles.length > 0 ? ['rule_files:', ...ruleFiles.map((f) => `  - ${JSON.stringify(f)}`)] : []),
    'scrape_configs:',
    ...Object.entries(jobs).flatMap(([job, targets]) => [`  - job_name: ${JSON.stringify(job)}`, '    static_configs:', `      - targets: ${JSON.stringify(targets)}`]),
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), `${config}\n`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const child: ChildProcess = spawn(
    process.env.PROMETHEUS_BIN ?? 'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn', ...features.map((f) => `--enable-feature=${f}`)],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await eventually(async () => (await fetch(`${url}/-/ready`).catch(() => null))?.ok === true, 30_000, `Prometheus ready on ${url}`);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${log}`, { cause: error });
  }
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
