import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@sluice/launcher';

/** grafana/: provisioning files and the dashboards they load (docker-compose.yml mounts them). */
export const GRAFANA_DIR = join(REPO_ROOT, 'grafana');
export const DASHBOARDS_DIR = join(GRAFANA_DIR, 'dashboards');

/** The parts of Grafana's dashboard JSON model the checks read; everything else passes through. */
export interface GrafanaPanel {
  readonly id?: unknown;
  readonly type?: unknown;
  readonly title?: unknown;
  readonly gridPos?: { readonly h?: unknown; readonly w?: unknown; readonly x?: unknown; readonly y?: unknown };
  readonly datasource?: { readonly type?: unknown; readonly uid?: unknown };
  readonly targets?: readonly { readonly expr?: unknown; readonly refId?: unknown; readonly exemplar?: unknown; readonly datasource?: { readonly uid?: unknown } }[];
  /** A row's panels (collapsed rows keep their panels here). */
  readonly panels?: readonly GrafanaPanel[];
}

export interface GrafanaVariable {
  readonly name?: unknown;
  readonly type?: unknown;
  readonly query?: unknown;
  readonly datasource?: { readonly uid?: unknown };
}

export interface GrafanaDashboard {
  readonly uid?: unknown;
  readonly title?: unknown;
  readonly schemaVersion?: unknown;
  readonly panels?: readonly GrafanaPanel[];
  readonly templating?: { readonly list?: readonly GrafanaVariable[] };
}

export interface LoadedDashboard {
  readonly file: string;
  readonly json: GrafanaDashboard;
}

/** One PromQL query of a dashboard, with where it is for error messages. */
export interface DashboardQuery {
  readonly where: string;
  readonly expr: string;
  /** Variable queries may be Grafana's `label_values(metric, label)` rather than plain PromQL. */
  readonly variable: boolean;
}

export function loadDashboards(dir = DASHBOARDS_DIR): LoadedDashboard[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, json: JSON.parse(readFileSync(join(dir, file), 'utf8')) as GrafanaDashboard }));
}

/** Every panel, rows' nested panels included. */
export function allPanels(dashboard: GrafanaDashboard): GrafanaPanel[] {
  const walk = (panels: readonly GrafanaPanel[] = []): GrafanaPanel[] => panels.flatMap((p) => [p, ...walk(p.panels)]);
  return walk(dashboard.panels);
}

/** The query of a variable: a string, or `{ query }` as newer Grafana versions save it. */
export function variableQuery(variable: GrafanaVariable): string | undefined {
  const q = variable.query;
  if (typeof q === 'string') return q;
  if (q !== null && typeof q === 'object' && typeof (q as { query?: unknown }).query === 'string') return (q as { query: string }).query;
  return undefined;
}

/** Every PromQL expression: panel targets and query variables. */
export function dashboardQueries({ file, json }: LoadedDashboard): DashboardQuery[] {
  const fromPanels = allPanels(json).flatMap((panel) =>
    (panel.targets ?? []).map((t) => ({ where: `${file} panel "${String(panel.title)}" ${String(t.refId)}`, expr: typeof t.expr === 'string' ? t.expr : '', variable: false })),
  );
  const fromVariables = (json.templating?.list ?? [])
    .filter((v) => v.type === 'query')
    .map((v) => ({ where: `${file} variable ${String(v.name)}`, expr: variableQuery(v) ?? '', variable: true }));
  return [...fromPanels, ...fromVariables];
}
