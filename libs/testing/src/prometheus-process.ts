import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FREE_PORT_ARGS, SERVICE_CONFIG_KEYS, freePort, freePorts, startLocalCluster, type LocalCluster, type LocalClusterOptions, type ServiceName } from '@sluice/launcher';
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

/**
 * A port picked here for each of `services` (one process each: no replicas, one worker process),
 * so a Prometheus can be given its targets before the cluster starts. `configArgs` put every
 * service on a free port as FREE_PORT_ARGS do, these on theirs; `jobs` has one job per service.
 *
 * Prometheus scrapes a target about 5 s after it starts at the earliest (its discovery hands on
 * targets on a fixed 5 s tick), about as long as a cluster takes to start: with the targets known
 * first the two start together, and Prometheus reads each service down until it answers.
 */
export async function scrapeTargetsAhead(
  services: readonly ServiceName[] = ['worker', 'router', 'flow-controller', 'admission', 'gateway'],
): Promise<{ readonly configArgs: string[]; readonly jobs: Record<string, string[]> }> {
  const ports = await freePorts(services.length);
  const picked = services.map((service, i) => ({ service, key: SERVICE_CONFIG_KEYS[service], port: ports[i]! }));
  return {
    configArgs: [...FREE_PORT_ARGS.filter((arg) => !picked.some((p) => arg.startsWith(`--${p.key}.port=`))), ...picked.map((p) => `--${p.key}.port=${p.port}`)],
    jobs: Object.fromEntries(picked.map((p) => [p.service, [`127.0.0.1:${p.port}`]])),
  };
}

/**
 * A cluster (`options`, its ports picked here: give no port flags) and a Prometheus scraping every
 * service, started together (scrapeTargetsAhead says why). Should either fail to start, the other
 * is stopped before the error is thrown, so a failed start leaves no process behind.
 */
export async function startScrapedCluster(
  options: LocalClusterOptions & { readonly configArgs: readonly string[] },
  scrapeIntervalS: number,
  ruleFiles: readonly string[] = [],
): Promise<{ readonly cluster: LocalCluster; readonly prometheus: PrometheusProcess }> {
  const { configArgs, jobs } = await scrapeTargetsAhead();
  const [cluster, prometheus] = await Promise.allSettled([startLocalCluster({ ...options, configArgs: [...configArgs, ...options.configArgs] }), startPrometheus(jobs, scrapeIntervalS, [], ruleFiles)]);
  if (cluster.status === 'fulfilled' && prometheus.status === 'fulfilled') return { cluster: cluster.value, prometheus: prometheus.value };
  await Promise.all([cluster.status === 'fulfilled' ? cluster.value.stop() : undefined, prometheus.status === 'fulfilled' ? prometheus.value.stop() : undefined]);
  throw cluster.status === 'rejected' ? cluster.reason : (prometheus as PromiseRejectedResult).reason;
}
