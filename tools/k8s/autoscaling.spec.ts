import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@sluice/config';
import { BusyThresholdParamsSchema, busyThresholdsFor, UTILIZATION_DETECTOR, UtilizationDetectorParamsSchema } from '@sluice/policies';
import { metricNamesIn, readMetricsDoc } from '@sluice/testing';
import { KedaPrometheusTriggerMetadataSchema } from './keda-prometheus-trigger.schema.js';
import { adapterQuery, PrometheusAdapterConfigSchema, type PrometheusAdapterRule } from './prometheus-adapter-config.schema.js';
import { renderKustomization, withoutHashSuffix, type K8sObject } from './render-kustomization.js';

/**
 * The autoscaling overlays against the rest of infra/k8s and against what sluice exposes: the
 * scaler targets the worker Deployment the base defines, its PromQL reads a series docs/metrics.md
 * documents (the live dashboards spec holds that doc to the running services) with labels that
 * series has, for this pool and namespace; a KEDA field KEDA would ignore is not set; and the KEDA
 * and plain-HPA overlays are one policy written twice.
 */
const KEDA_OVERLAY = 'infra/k8s/overlays/autoscaling-keda';
const HPA_OVERLAY = 'infra/k8s/overlays/autoscaling-hpa';
const WORKER = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'worker' };
/** Labels Prometheus puts on a scraped series from its target (the Prometheus Operator's ServiceMonitor scrape), beside the exposed ones. */
const SCRAPE_LABELS = ['namespace', 'pod', 'service', 'job', 'instance', 'container', 'endpoint'];

interface ScaleTargetRef {
  apiVersion?: string;
  kind?: string;
  name: string;
}
interface Behavior {
  scaleUp?: unknown;
  scaleDown?: unknown;
}
interface ScaledObject extends K8sObject {
  spec: {
    scaleTargetRef: ScaleTargetRef;
    minReplicaCount?: number;
    maxReplicaCount?: number;
    pollingInterval?: number;
    cooldownPeriod?: number;
    initialCooldownPeriod?: number;
    idleReplicaCount?: number;
    advanced?: { horizontalPodAutoscalerConfig?: { behavior?: Behavior } };
    triggers: { type: string; name?: string; metricType?: string; useCachedMetrics?: boolean; metadata: Record<string, string> }[];
  };
}
interface ExternalMetric {
  type: string;
  external?: { metric: { name: string; selector?: { matchLabels?: Record<string, string> } }; target: { type: string; averageValue?: string } };
}
interface HorizontalPodAutoscaler extends K8sObject {
  spec: { scaleTargetRef: ScaleTargetRef; minReplicas?: number; maxReplicas: number; metrics: ExternalMetric[]; behavior?: Behavior };
}
type Workload = K8sObject & { spec: { replicas?: number } };

const AUTOSCALER_KINDS = ['ScaledObject', 'HorizontalPodAutoscaler'];
const ofKind = <T extends K8sObject>(objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind) as T[];

/** The label matchers of every selector in a PromQL expression: `name op "value"`. */
function labelMatchers(expr: string): { label: string; op: string; value: string }[] {
  return [...expr.matchAll(/\{([^}]*)\}/g)].flatMap(([, inside]) =>
    [...inside!.matchAll(/([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map(([, label, op, value]) => ({ label: label!, op: op!, value: value! })),
  );
}

/** The config the services of this render read: sluice.yaml with the shared environment over it. */
function renderedConfig(objects: K8sObject[]) {
  const data = (name: string) => (objects.find((o) => o.kind === 'ConfigMap' && withoutHashSuffix(o.metadata.name) === name) as K8sObject & { data: Record<string, string> }).data;
  const file = join(mkdtempSync(join(tmpdir(), 'sluice-autoscaling-')), 'sluice.yaml');
  writeFileSync(file, data('sluice-config')['sluice.yaml']!);
  return loadConfig({ file, env: data('sluice-env') });
}

/** Every problem with a query's series and labels, against docs/metrics.md's flow-controller section. */
function seriesProblems(expr: string, expected: { namespace: string; inferencePool: string }): string[] {
  const doc = readMetricsDoc().filter((row) => row.section === 'flow-controller');
  const problems: string[] = [];
  const names = metricNamesIn(expr);
  if (names.length === 0) problems.push(`${expr}: reads no series`);
  for (const name of names) {
    const row = doc.find((r) => r.name === name);
    if (!row) {
      problems.push(`${name}: not a flow-controller series of docs/metrics.md`);
      continue;
    }
    for (const { label } of labelMatchers(expr)) {
      if (!row.labels.includes(label) && !SCRAPE_LABELS.includes(label)) problems.push(`${name}: has no label ${label}`);
    }
  }
  const equal = (label: string) => labelMatchers(expr).find((m) => m.label === label && m.op === '=')?.value;
  if (equal('inference_pool') !== expected.inferencePool) problems.push(`${expr}: inference_pool is not "${expected.inferencePool}" (sluice.yaml's inferencePool)`);
  if (equal('namespace') !== expected.namespace) problems.push(`${expr}: namespace is not "${expected.namespace}" (the overlay's)`);
  return problems;
}

describe.each([KEDA_OVERLAY, HPA_OVERLAY])('%s', (overlay) => {
  const objects = renderKustomization(overlay);
  const autoscalers = objects.filter((o) => AUTOSCALER_KINDS.includes(o.kind)) as (ScaledObject | HorizontalPodAutoscaler)[];

  it('has one autoscaler, on the worker Deployment the base defines, which no longer sets its own replicas', () => {
    expect(autoscalers.map((a) => a.kind)).toHaveLength(1);
    const ref = autoscalers[0]!.spec.scaleTargetRef;
    // KEDA's defaults for an omitted apiVersion and kind are apps/v1 and Deployment.
    expect({ apiVersion: ref.apiVersion ?? 'apps/v1', kind: ref.kind ?? 'Deployment', name: ref.name }).toEqual(WORKER);
    const worker = objects.find((o) => o.kind === WORKER.kind && o.metadata.name === ref.name) as Workload | undefined;
    expect(worker, `no ${WORKER.kind} named ${ref.name} in the render`).toBeDefined();
    expect(worker!.metadata.namespace).toBe(autoscalers[0]!.metadata.namespace);
    // A replicas field in the manifest would reset the autoscaler's count on every apply.
    expect(worker!.spec).not.toHaveProperty('replicas');
  });

  it('refuses a request for busy workers only while flow control queues, so the autoscaler has seen the demand (Dynamo: scale at 70 %, reject at 85 %)', () => {
    const config = renderedConfig(objects);
    // No flow control, no queue: the scaler's metric would stay 0 whatever the load.
    expect(config.flowController.enabled).toBe(true);
    const detector = config.flowController.saturationDetector;
    expect(detector.type, 'the order below compares KV fractions; another detector needs its own check').toBe(UTILIZATION_DETECTOR);
    const { kvCacheUtilThreshold } = UtilizationDetectorParamsSchema.parse(detector.parameters);
    expect(config.admission.policy).toContain('busy-threshold');
    const busy = BusyThresholdParamsSchema.parse(config.admission.policies['busy-threshold']);
    // An instance is busy when its decoding requests hold more than activeDecodeBlocksThreshold of
    // its blocks; they hold no more than it has allocated (kvUtilization). So with the busy
    // threshold at or above kvCacheUtilThreshold, every instance busy means every instance over
    // the detector's threshold: the pool reads saturated and requests queue. Per model, as an
    // override may lower it.
    for (const model of config.models) {
      const decode = busyThresholdsFor(busy, model.name).activeDecodeBlocksThreshold;
      expect(decode, `${model.name}: a decode-blocks busy threshold`).toBeDefined();
      expect(decode!, model.name).toBeGreaterThanOrEqual(kvCacheUtilThreshold);
    }
  });
});

describe(KEDA_OVERLAY, () => {
  const objects = renderKustomization(KEDA_OVERLAY);
  const [scaledObject] = ofKind<ScaledObject>(objects, 'ScaledObject');
  const { spec } = scaledObject!;

  it('scales on a prometheus trigger whose metadata KEDA reads in full (no key it would ignore), as an AverageValue', () => {
    expect(spec.triggers.map((t) => t.type)).toEqual(['prometheus']);
    for (const trigger of spec.triggers) {
      const parsed = KedaPrometheusTriggerMetadataSchema.safeParse(trigger.metadata);
      expect(parsed.error?.issues ?? [], trigger.name).toEqual([]);
      expect(trigger.metricType ?? 'AverageValue', 'threshold per replica').toBe('AverageValue');
    }
  });

  it('reads the flow-control queue of this pool and namespace, a series the flow controller exposes', () => {
    const config = renderedConfig(objects);
    for (const trigger of spec.triggers) {
      const query = trigger.metadata.query!;
      expect(metricNamesIn(query)).toEqual(['llm_d_epp_flow_control_queue_size']);
      expect(seriesProblems(query, { namespace: scaledObject!.metadata.namespace!, inferencePool: config.inferencePool })).toEqual([]);
      // One sample for KEDA: the whole pool's queue, summed.
      expect(query.trim()).toMatch(/^sum\s*\(/);
    }
  });

  it('sets no field KEDA ignores: activation and cooldown act only on 0↔1, which minReplicaCount ≥ 1 rules out', () => {
    const min = spec.minReplicaCount ?? 0; // KEDA's default
    expect(min).toBeLessThanOrEqual(spec.maxReplicaCount ?? 100);
    if (min >= 1) {
      const ignored = [
        ...(['cooldownPeriod', 'initialCooldownPeriod', 'idleReplicaCount'] as const).filter((k) => spec[k] !== undefined),
        ...spec.triggers.filter((t) => t.metadata.activationThreshold !== undefined).map((t) => `${t.name}.activationThreshold`),
      ];
      expect(ignored).toEqual([]);
    }
    expect(spec.advanced?.horizontalPodAutoscalerConfig?.behavior?.scaleUp).toBeDefined();
    expect(spec.advanced?.horizontalPodAutoscalerConfig?.behavior?.scaleDown).toBeDefined();
  });
});

/** prometheus-adapter's rules as the HPA overlay ships them, parsed by their schema. */
function adapterConfigOf(objects: K8sObject[]) {
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'prometheus-adapter-sluice') as (K8sObject & { data: Record<string, string> }) | undefined;
  return PrometheusAdapterConfigSchema.safeParse(parseYaml(configMap?.data['config.yaml'] ?? ''));
}

/** The PromQL the adapter runs for the HPA's external metric, or undefined when no rule serves it. */
function hpaQuery(hpa: HorizontalPodAutoscaler, rules: PrometheusAdapterRule[]): string | undefined {
  const { metric } = hpa.spec.metrics[0]!.external!;
  const served = rules.flatMap((rule) => servedMetric(rule)).find((s) => s.name === metric.name);
  if (!served) return undefined;
  // The HPA's namespace (the rule maps the namespace label), then the HPA's selector.
  const matchers = [`namespace="${hpa.metadata.namespace}"`, ...Object.entries(metric.selector?.matchLabels ?? {}).map(([k, v]) => `${k}="${v}"`)].join(',');
  return adapterQuery(served.rule, served.series, matchers);
}

describe(HPA_OVERLAY, () => {
  const objects = renderKustomization(HPA_OVERLAY);
  const [hpa] = ofKind<HorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler');
  const adapterConfig = adapterConfigOf(objects);

  it("ships prometheus-adapter rules the adapter's strict loader accepts", () => {
    expect(adapterConfig.error?.issues ?? []).toEqual([]);
  });

  it('scales on an External AverageValue metric that an adapter rule serves from the flow-control queue of this pool and namespace', () => {
    const config = renderedConfig(objects);
    expect(hpa!.spec.metrics.map((m) => [m.type, m.external?.target.type])).toEqual([['External', 'AverageValue']]);
    const query = hpaQuery(hpa!, adapterConfig.data?.externalRules ?? []);
    expect(query, `no external rule serves ${hpa!.spec.metrics[0]!.external!.metric.name}`).toBeDefined();
    expect(metricNamesIn(query!)).toEqual(['llm_d_epp_flow_control_queue_size']);
    expect(seriesProblems(query!, { namespace: hpa!.metadata.namespace!, inferencePool: config.inferencePool })).toEqual([]);
  });
});

describe('the KEDA and the HPA overlays', () => {
  const [scaledObject] = ofKind<ScaledObject>(renderKustomization(KEDA_OVERLAY), 'ScaledObject');
  const hpaObjects = renderKustomization(HPA_OVERLAY);
  const [hpa] = ofKind<HorizontalPodAutoscaler>(hpaObjects, 'HorizontalPodAutoscaler');

  it('send Prometheus queries that parse (promtool check rules, where promtool is installed)', () => {
    const queries = [...scaledObject!.spec.triggers.map((t) => t.metadata.query!), hpaQuery(hpa!, adapterConfigOf(hpaObjects).data?.externalRules ?? [])!];
    const file = join(mkdtempSync(join(tmpdir(), 'sluice-autoscaling-')), 'queries.yaml');
    const rules = queries.map((expr, i) => ({ record: `sluice:autoscaling_query:${i}`, expr }));
    writeFileSync(file, stringifyYaml({ groups: [{ name: 'autoscaling', rules }] }));
    try {
      execFileSync('promtool', ['check', 'rules', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        console.warn('promtool is not installed: the autoscaling queries were checked for their series only');
        return;
      }
      expect.fail(`promtool refused a query:\n${String((error as { stdout?: string }).stdout)}${String((error as { stderr?: string }).stderr)}`);
    }
  });

  it('are one policy: the same bounds, per-replica target and behaviour', () => {
    const keda = scaledObject!.spec;
    expect([keda.minReplicaCount, keda.maxReplicaCount]).toEqual([hpa!.spec.minReplicas, hpa!.spec.maxReplicas]);
    expect(Number(keda.triggers[0]!.metadata.threshold)).toBe(Number(hpa!.spec.metrics[0]!.external!.target.averageValue));
    expect(keda.advanced?.horizontalPodAutoscalerConfig?.behavior).toEqual(hpa!.spec.behavior);
  });
});

/**
 * The external metrics a rule serves: its series (from seriesQuery) under the name `name.as`, or,
 * with no `as`, the series name itself where `matches` has no capture group (prometheus-adapter
 * docs/config.md, "Naming").
 */
function servedMetric(rule: PrometheusAdapterRule): { name: string; series: string; rule: PrometheusAdapterRule }[] {
  const series = /^\s*([A-Za-z_:][\w:]*)/.exec(rule.seriesQuery)?.[1] ?? /__name__="([^"]+)"/.exec(rule.seriesQuery)?.[1];
  if (!series) return [];
  const matches = new RegExp(rule.name?.matches ?? '.*');
  const match = matches.exec(series);
  if (!match) return [];
  const as = rule.name?.as ?? (match.length > 2 ? undefined : match.length === 2 ? '$1' : '$0');
  if (as === undefined) return [];
  const name = as.replace(/\$\{?(\d)\}?/g, (_all, i: string) => match[Number(i)] ?? '');
  return [{ name, series, rule }];
}
