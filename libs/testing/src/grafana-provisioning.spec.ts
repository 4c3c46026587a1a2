import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { allPanels, dashboardQueries, GRAFANA_DIR, loadDashboards, variableQuery, type GrafanaPanel } from './grafana-dashboards.js';

/**
 * grafana/ has the shape Grafana's provisioning loads: the data source and dashboard provider
 * files (apiVersion 1), and dashboard JSON whose every panel queries through the DS_PROMETHEUS
 * variable. That the queries name real metrics is checked against a live cluster in
 * grafana-dashboards.int-spec.ts.
 */
const DS_REF = '${DS_PROMETHEUS}';
/** Where docker-compose.yml mounts grafana/dashboards/ in the Grafana container. */
const DASHBOARDS_MOUNT = '/var/lib/grafana/dashboards';
const PANEL_TYPES = new Set(['row', 'timeseries', 'stat', 'gauge', 'bargauge', 'table', 'text', 'heatmap', 'barchart', 'piechart']);
/** Grafana's built-in variables a query may use without defining them. */
const BUILT_INS = new Set(['__rate_interval', '__interval', '__interval_ms', '__range', '__range_s', '__range_ms']);

const yamlFile = (path: string) => parse(readFileSync(join(GRAFANA_DIR, 'provisioning', path), 'utf8')) as Record<string, unknown>;
const dashboards = loadDashboards();

describe('grafana provisioning files', () => {
  it('provision one default Prometheus data source with uid prometheus at the compose service', () => {
    const file = yamlFile('datasources/prometheus.yml');
    expect(file.apiVersion).toBe(1);
    const sources = file.datasources as Record<string, unknown>[];
    expect(sources).toEqual([
      expect.objectContaining({ name: expect.any(String), type: 'prometheus', uid: 'prometheus', access: 'proxy', url: 'http://prometheus:9090', isDefault: true }),
    ]);
  });

  it('provision the compose stack’s Jaeger, and link the Prometheus exemplars’ trace_id to it', () => {
    const file = yamlFile('datasources/jaeger.yml');
    expect(file.apiVersion).toBe(1);
    const sources = file.datasources as Record<string, unknown>[];
    expect(sources).toEqual([expect.objectContaining({ type: 'jaeger', uid: 'jaeger', access: 'proxy', url: 'http://jaeger:16686' })]);
    const [prometheus] = yamlFile('datasources/prometheus.yml').datasources as { jsonData?: { exemplarTraceIdDestinations?: unknown } }[];
    expect(prometheus?.jsonData?.exemplarTraceIdDestinations).toEqual([{ name: 'trace_id', datasourceUid: 'jaeger' }]);
  });

  it('show exemplars on the gateway’s TTFT and request-duration panels, where they carry a trace id', () => {
    const exemplarMetrics = ['sluice_time_to_first_token_seconds_bucket', 'sluice_request_duration_seconds_bucket'];
    for (const metric of exemplarMetrics) {
      const targets = dashboards.flatMap(({ json }) => allPanels(json).flatMap((p) => p.targets ?? [])).filter((t) => typeof t.expr === 'string' && t.expr.includes(metric));
      expect(targets.some((t) => t.exemplar === true), metric).toBe(true);
    }
  });

  it('load dashboards from the directory the compose file mounts', () => {
    const file = yamlFile('dashboards/sluice.yml');
    expect(file.apiVersion).toBe(1);
    const providers = file.providers as Record<string, unknown>[];
    expect(providers).toHaveLength(1);
    expect(providers[0]).toMatchObject({ name: expect.any(String), type: 'file', options: { path: DASHBOARDS_MOUNT } });
  });
});

describe.each(dashboards)('dashboard $file', ({ file, json }) => {
  const panels = allPanels(json);
  const variables = json.templating?.list ?? [];

  it('has a uid, a title and a current schema version', () => {
    expect(json.uid).toMatch(/^[\w-]{1,40}$/);
    expect(json.title).toEqual(expect.stringMatching(/\S/));
    expect(json.schemaVersion).toBeGreaterThanOrEqual(36);
  });

  it('declares the DS_PROMETHEUS data source variable, and every query variable uses it', () => {
    expect(variables).toContainEqual(expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', query: 'prometheus' }));
    for (const v of variables.filter((v) => v.type === 'query')) {
      expect(v.datasource?.uid, `variable ${String(v.name)}`).toBe(DS_REF);
      expect(variableQuery(v), `variable ${String(v.name)}`).toMatch(/\S/);
    }
  });

  it('lays out panels with unique ids on a 24-column grid, without overlaps', () => {
    expect(panels.length).toBeGreaterThan(0);
    const ids = panels.map((p) => p.id);
    expect(ids.every((id) => Number.isInteger(id) && (id as number) > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const boxes = (json.panels ?? []).map((p) => ({ title: String(p.title), ...(p.gridPos as Record<'h' | 'w' | 'x' | 'y', number>) }));
    for (const b of boxes) {
      expect([b.h, b.w, b.x, b.y].every(Number.isInteger), b.title).toBe(true);
      expect(b.w >= 1 && b.h >= 1 && b.x >= 0 && b.y >= 0 && b.x + b.w <= 24, b.title).toBe(true);
    }
    const overlaps = (a: (typeof boxes)[number], b: (typeof boxes)[number]) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
    const overlapping = boxes.flatMap((a, i) => boxes.slice(i + 1).filter((b) => overlaps(a, b)).map((b) => `${a.title} / ${b.title}`));
    expect(overlapping).toEqual([]);
  });

  it('gives every panel a known type, and every non-row panel PromQL targets on DS_PROMETHEUS', () => {
    const problems = (panel: GrafanaPanel): string[] => {
      const at = `${file} panel ${String(panel.id)} "${String(panel.title)}"`;
      if (typeof panel.type !== 'string' || !PANEL_TYPES.has(panel.type)) return [`${at}: type ${String(panel.type)}`];
      if (panel.type === 'row') return Array.isArray(panel.panels) ? [] : [`${at}: a row needs a panels array`];
      const targets = panel.targets ?? [];
      const refIds = targets.map((t) => t.refId);
      return [
        ...(panel.datasource?.uid === DS_REF ? [] : [`${at}: datasource ${JSON.stringify(panel.datasource)}`]),
        ...(targets.length > 0 ? [] : [`${at}: no targets`]),
        ...(new Set(refIds).size === refIds.length && refIds.every((r) => typeof r === 'string' && r !== '') ? [] : [`${at}: refIds ${JSON.stringify(refIds)}`]),
        ...targets.filter((t) => typeof t.expr !== 'string' || !/\S/.test(t.expr)).map((t) => `${at} ${String(t.refId)}: empty expr`),
        ...targets.filter((t) => t.datasource !== undefined && t.datasource.uid !== DS_REF).map((t) => `${at} ${String(t.refId)}: datasource ${JSON.stringify(t.datasource)}`),
      ];
    };
    expect(panels.flatMap(problems)).toEqual([]);
  });

  it('uses only variables it defines (or Grafana built-ins) in its queries', () => {
    const defined = new Set(variables.map((v) => String(v.name)));
    const unknown = dashboardQueries({ file, json }).flatMap(({ where, expr }) =>
      [...expr.matchAll(/\$\{(\w+)(?::\w+)?\}|\$(\w+)/g)].map((m) => m[1] ?? m[2]!).filter((name) => !defined.has(name) && !BUILT_INS.has(name)).map((name) => `${where}: $${name}`),
    );
    expect(unknown).toEqual([]);
  });
});

describe('the dashboards together', () => {
  it('are the cluster overview and the worker view, with distinct uids and titles', () => {
    expect(dashboards.map((d) => d.file)).toEqual(['sluice-overview.json', 'sluice-worker.json']);
    expect(new Set(dashboards.map((d) => d.json.uid)).size).toBe(dashboards.length);
    expect(new Set(dashboards.map((d) => d.json.title)).size).toBe(dashboards.length);
  });
});
