import { httpHeaders } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postCompletion } from './completions.js';
import { eventually } from './probes.js';

/**
 * A hostile probe of the metrics pages (docs/metrics.md, "Bounded pages"): a client inventing
 * tenants in every SLO class, streamed and not, cannot grow any service's page past its budget;
 * idle tenants' series go away; and requests are answered while every page is scraped at once.
 * Without the cap each tenant × class added ~42 kB to the gateway's page and ~17 kB to the flow
 * controller's: the 750 made here would be ~30 MB and ~13 MB. Loopback only, a few seconds of load.
 */

const TENANTS = 150;
const SLO_CLASSES = ['critical', 'standard', 'batch', 'sheddable', 'background'] as const;
const MAX_TENANT_SERIES = 8;
/** The bound asserted on every page: the budget's tenants, an `other` per class and each service's own series fit well under it. */
const PAGE_BOUND_BYTES = 1024 * 1024;

let cluster: LocalCluster;

const page = async (url: string) => {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
};
const tenantsOn = (text: string) => new Set([...text.matchAll(/fairness_id="(tenant-[^"]*)"/g)].map((m) => m[1]));

async function ask(tenant: string, sloClass: string, stream: boolean): Promise<number> {
  const response = await postCompletion(cluster.gatewayUrl, { prompt: 'one two three', max_tokens: 1, ...(stream ? { stream: true } : {}) }, { headers: { [httpHeaders.fairnessId]: tenant, [httpHeaders.sloClass]: sloClass } });
  await response.text();
  return response.status;
}

beforeAll(async () => {
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    configArgs: [
      '--nats.auth=false',
      ...FREE_PORT_ARGS,
      '--worker.timeScale=1000',
      `--metrics.maxTenantSeries=${MAX_TENANT_SERIES}`,
      '--metrics.tenantSeriesIdleMs=1000',
      '--flowController.flowGCTimeout=1s',
    ],
  });
});

afterAll(async () => {
  await cluster?.stop();
});

describe('metrics pages under a tenant flood', () => {
  it('every page stays under its bound, past the budget tenants read other, and idle tenants leave', { timeout: 90_000 }, async () => {
    const jobs = Array.from({ length: TENANTS }, (_, t) => SLO_CLASSES.flatMap((sloClass) => [false, true].map((stream) => () => ask(`tenant-${t}`, sloClass, stream)))).flat();
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        for (let i = next++; i < jobs.length; i = next++) statuses.push(await jobs[i]!());
      }),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);

    const gateway = cluster.services.find((s) => s.name === 'gateway')!.url;
    const flow = cluster.services.find((s) => s.name === 'flow-controller')!.url;
    for (const service of cluster.services) expect(Buffer.byteLength(await page(service.url)), `${service.name}'s page`).toBeLessThan(PAGE_BOUND_BYTES);
    for (const url of [gateway, flow]) {
      const text = await page(url);
      // Tenants are fairness id × priority: at most the budget's by name, the rest as other.
      expect(tenantsOn(text).size).toBeLessThanOrEqual(MAX_TENANT_SERIES);
      expect(text).toMatch(/fairness_id="other"/);
    }

    // A second after its last request a tenant is idle (the gateway) and its flow forgotten (the flow controller).
    await eventually(async () => tenantsOn(await page(gateway)).size === 0 && tenantsOn(await page(flow)).size === 0, 20_000, 'idle tenants gone from both pages');
    expect(await page(gateway)).toMatch(/^sluice_metrics_tenant_series\{[^}]*\} 0$/m);
    // A new tenant has room again.
    expect(await ask('tenant-new', 'standard', false)).toBe(200);
    expect(tenantsOn(await page(gateway))).toEqual(new Set(['tenant-new']));
  });

  it('requests are answered while every page is being scraped, eight scrapes at a time', { timeout: 60_000 }, async () => {
    const scrapes = cluster.services.flatMap((s) => Array.from({ length: 8 }, () => page(s.url)));
    const requests = Array.from({ length: 20 }, (_, i) => ask(`scraped-${i % 4}`, 'standard', i % 2 === 0));
    expect(await Promise.all(requests)).toEqual(Array.from({ length: 20 }, () => 200));
    for (const text of await Promise.all(scrapes)) expect(text).toMatch(/^# TYPE process_cpu_seconds_total counter$/m);
  });
});
