import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { loadConfig } from '@sluice/config';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { BUS_IDENTITIES } from '@sluice/contracts';
import { authorizationBlock, envPasswordOf, passwordEnvOf } from '@sluice/launcher';
import { InferenceObjectiveSchema, InferencePoolSchema, modelOf } from './gaie-crds.schema.js';
import { renderKustomization, withoutHashSuffix, type K8sObject } from './render-kustomization.js';

/**
 * infra/k8s without a cluster: each overlay renders, every object passes the Kubernetes API's
 * schema (kubernetes-models, pinned; no network), and the rules a rolling restart relies on hold.
 * Where kubectl is installed, its Kustomize renders the same objects as the renderer used here.
 */
const OVERLAYS = ['infra/k8s/overlays/dev', 'infra/k8s/overlays/gateway-api', 'infra/k8s/overlays/autoscaling-keda', 'infra/k8s/overlays/autoscaling-hpa'];
/** The Secret every deployment expects (created per cluster: README, "Kubernetes"). */
const SECRET = 'sluice-nats-credentials';
const SERVICES = ['gateway', 'admission', 'flow-controller', 'router', 'worker'];

/** Each kind the manifests may use, with its schema; any other kind fails the check. */
const SCHEMAS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'apps/v1 StatefulSet': StatefulSet,
  'v1 ConfigMap': ConfigMap,
  'v1 Namespace': Namespace,
  'v1 Service': Service,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'monitoring.coreos.com/v1 ServiceMonitor': ServiceMonitor,
  'gateway.networking.k8s.io/v1 HTTPRoute': HTTPRoute,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'keda.sh/v1alpha1 ScaledObject': ScaledObject,
  'inference.networking.k8s.io/v1 InferencePool': modelOf(InferencePoolSchema),
  'inference.networking.x-k8s.io/v1alpha2 InferenceObjective': modelOf(InferenceObjectiveSchema),
};

interface Container {
  name: string;
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: { cpu?: string; memory?: string } };
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string } }[];
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: { containers: (Container & { volumeMounts?: { name: string; mountPath: string }[] })[]; terminationGracePeriodSeconds?: number; volumes?: { name: string; configMap?: { name: string } }[] };
}
/** An env entry filled from a Secret, and a volume of one: what the bus credentials use. */
interface SecretEnv {
  name: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface SecretVolume {
  name: string;
  secret?: { secretName: string; items: { key: string; path: string }[] };
}
type Workload = K8sObject & { spec: { replicas?: number; selector: { matchLabels: Record<string, string> }; template: PodTemplate } };
type Selecting = K8sObject & { spec: { selector: Record<string, string> | { matchLabels: Record<string, string> }; ports?: { targetPort: string | number }[] } };

const named = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && withoutHashSuffix(o.metadata.name) === name);
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

function kubectlRender(dir: string): K8sObject[] | undefined {
  try {
    const text = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return parseAllDocuments(text).map((doc) => doc.toJS() as K8sObject);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // no kubectl here
    throw error;
  }
}

/** Objects as comparable text: generated names without their hash, in a stable order. */
function comparable(objects: K8sObject[]): string[] {
  const text = (o: K8sObject) => JSON.stringify(o, (_k, v: unknown) => (typeof v === 'string' ? withoutHashSuffix(v) : v), 0);
  return objects.map((o) => JSON.stringify(JSON.parse(text(o)), Object.keys(flatKeys(o)).sort())).sort();
}
function flatKeys(value: unknown, keys: Record<string, true> = {}): Record<string, true> {
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      keys[k] = true;
      flatKeys(v, keys);
    }
  }
  return keys;
}

describe.each(OVERLAYS)('%s', (overlay) => {
  const objects = renderKustomization(overlay);

  it('renders as kubectl’s Kustomize renders it (where kubectl is installed)', () => {
    const fromKubectl = kubectlRender(overlay);
    if (fromKubectl === undefined) {
      console.warn(`kubectl is not installed: ${overlay} checked with tools/k8s/render-kustomization.ts only`);
      return;
    }
    expect(comparable(objects)).toEqual(comparable(fromKubectl));
  });

  it('every object passes the Kubernetes API schema of its kind', () => {
    const problems: string[] = [];
    for (const object of objects) {
      const Model = SCHEMAS[`${object.apiVersion} ${object.kind}`];
      if (!Model) {
        problems.push(`${object.kind} ${object.metadata.name}: ${object.apiVersion} ${object.kind} has no schema here`);
        continue;
      }
      try {
        new Model(object as never).validate();
      } catch (error) {
        problems.push(`${object.kind} ${object.metadata.name}: ${(error as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
    expect(new Set(objects.map((o) => `${o.kind}/${o.metadata.name}`)).size).toBe(objects.length);
  });

  it('runs the five services as Deployments, each with probes, requests, a Service and a disruption budget', () => {
    for (const name of SERVICES) {
      const deployment = named(objects, 'Deployment', name) as Workload | undefined;
      expect(deployment, name).toBeDefined();
      const { template, selector } = deployment!.spec;
      expect(matches(selector.matchLabels, template.metadata.labels), `${name}: selector matches its pods`).toBe(true);
      const [container] = template.spec.containers;
      const http = container?.ports?.find((p) => p.name === 'http');
      expect(http, `${name}: an http port`).toBeDefined();
      expect(container?.readinessProbe?.httpGet?.path, name).toBe('/readyz');
      expect(container?.livenessProbe?.httpGet?.path, name).toBe('/healthz');
      expect(container?.resources?.requests?.cpu, `${name}: cpu request`).toBeDefined();
      expect(container?.resources?.requests?.memory, `${name}: memory request`).toBeDefined();
      expect(template.metadata.annotations?.['prometheus.io/port'], `${name}: scraped on its http port`).toBe(String(http?.containerPort));

      const service = named(objects, 'Service', name) as Selecting | undefined;
      expect(service, `${name}: a Service`).toBeDefined();
      expect(matches(service!.spec.selector as Record<string, string>, template.metadata.labels), `${name}: the Service selects its pods`).toBe(true);
      expect(service!.spec.ports?.map((p) => p.targetPort), name).toEqual(['http']);

      const budget = named(objects, 'PodDisruptionBudget', name) as Selecting | undefined;
      expect(budget, `${name}: a PodDisruptionBudget`).toBeDefined();
      expect(matches((budget!.spec.selector as { matchLabels: Record<string, string> }).matchLabels, template.metadata.labels), `${name}: the budget selects its pods`).toBe(true);
    }
  });

  it('gives every pod the time to drain: grace period ≥ preStop pause + the service’s shutdownGraceMs, and sluice.yaml is a valid config', () => {
    const configMap = named(objects, 'ConfigMap', 'sluice-config') as (K8sObject & { data: Record<string, string> }) | undefined;
    const env = named(objects, 'ConfigMap', 'sluice-env') as (K8sObject & { data: Record<string, string> }) | undefined;
    expect(configMap && env).toBeTruthy();
    const dir = mkdtempSync(join(tmpdir(), 'sluice-k8s-'));
    const file = join(dir, 'sluice.yaml');
    writeFileSync(file, configMap!.data['sluice.yaml']!);
    for (const name of SERVICES) {
      const deployment = named(objects, 'Deployment', name) as Workload;
      const [container] = deployment.spec.template.spec.containers;
      // The files of the ConfigMaps the pod mounts, here: a path the environment names under a mount is read from them.
      const mounted = new Map<string, string>();
      for (const mount of container?.volumeMounts ?? []) {
        const source = deployment.spec.template.spec.volumes?.find((v) => v.name === mount.name)?.configMap;
        const data = source && (named(objects, 'ConfigMap', withoutHashSuffix(source.name)) as (K8sObject & { data: Record<string, string> }) | undefined)?.data;
        if (!data) continue;
        const local = mkdtempSync(join(dir, `${mount.name}-`));
        for (const [key, text] of Object.entries(data)) writeFileSync(join(local, key), text);
        mounted.set(mount.mountPath, local);
      }
      const local = (value: string | undefined) => [...mounted].reduce((v, [mountPath, here]) => (v?.startsWith(`${mountPath}/`) ? here + v.slice(mountPath.length) : v), value);
      // The config this pod reads: the file, then the shared environment, then its own env entries.
      const podEnv = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
      const podEnvironment = Object.fromEntries(Object.entries({ ...env!.data, ...podEnv }).map(([k, v]) => [k, local(v)]));
      const config = loadConfig({ file, env: podEnvironment });
      if (podEnvironment.SLUICE_INFERENCE_OBJECTIVES_FILE !== undefined) {
        // The InferencePool the overlay applies is the pool the services serve: its name, its workers' port.
        const pool = objects.find((o) => o.kind === 'InferencePool') as (K8sObject & { spec: { targetPorts: { number: number }[] } }) | undefined;
        expect([config.inferencePool, config.worker.port], name).toEqual([pool?.metadata.name, pool?.spec.targetPorts[0]?.number]);
        expect(config.inferenceObjectives.length, name).toBe(objects.filter((o) => o.kind === 'InferenceObjective').length);
      }
      const serviceKey = ({ 'flow-controller': 'flowController' } as Record<string, string>)[name] ?? name;
      const { shutdownGraceMs, port } = config[serviceKey as 'gateway'];
      expect(container?.ports?.find((p) => p.name === 'http')?.containerPort, `${name}: the container port is the configured one`).toBe(port);
      const preStop = container?.lifecycle?.preStop?.exec?.command;
      expect(preStop?.[0], `${name}: preStop pauses before SIGTERM`).toBe('sleep');
      const pauseSeconds = Number(preStop?.[1]);
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds, name).toBeGreaterThanOrEqual(pauseSeconds + shutdownGraceMs / 1000);
      expect(container?.envFrom?.map((e) => withoutHashSuffix(e.configMapRef?.name ?? '')), name).toEqual(['sluice-env']);
    }
  });

  it('ships every Grafana dashboard of grafana/dashboards in a ConfigMap the Grafana sidecar picks up', () => {
    const dashboards = named(objects, 'ConfigMap', 'sluice-grafana-dashboards') as (K8sObject & { data: Record<string, string> }) | undefined;
    expect(dashboards?.metadata.labels?.grafana_dashboard).toBe('1');
    expect(Object.keys(dashboards!.data).sort()).toEqual(readdirSync('grafana/dashboards').filter((f) => f.endsWith('.json')).sort());
    for (const [file, json] of Object.entries(dashboards!.data)) expect((JSON.parse(json) as { uid?: string }).uid, file).toBeTruthy();
  });

  it('requires bus credentials: NATS has one user per identity with its permissions, each pod reads only its own password from the Secret', () => {
    const authorization = named(objects, 'ConfigMap', 'nats-authorization') as (K8sObject & { data: Record<string, string> }) | undefined;
    expect(authorization?.data['nats-authorization.conf']).toBe(authorizationBlock(envPasswordOf));
    const nats = named(objects, 'StatefulSet', 'nats') as unknown as { spec: { template: { spec: { containers: { env: SecretEnv[] }[] } } } };
    const natsEnv = nats.spec.template.spec.containers[0]!.env;
    for (const identity of BUS_IDENTITIES) {
      expect(natsEnv.find((e) => e.name === passwordEnvOf(identity))?.valueFrom?.secretKeyRef, identity).toEqual({ name: SECRET, key: `${identity}.password` });
    }
    for (const name of SERVICES) {
      const deployment = named(objects, 'Deployment', name) as Workload;
      const [container] = deployment.spec.template.spec.containers;
      const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
      expect(env.SLUICE_NATS__USER, name).toBe(name);
      const volumes = (deployment.spec.template.spec as unknown as { volumes: SecretVolume[] }).volumes;
      const secret = volumes.find((v) => v.secret?.secretName === SECRET)?.secret;
      expect(secret?.items.map((i) => i.key), `${name}: its own password only`).toEqual([`${name}.password`]);
      expect(env.SLUICE_NATS__PASSWORD_FILE, name).toBe(`/credentials/${name}.password`);
    }
  });

  it('runs NATS as a 3-node cluster whose routes name every pod of the StatefulSet', () => {
    const nats = named(objects, 'StatefulSet', 'nats') as (Workload & { spec: { serviceName: string } }) | undefined;
    expect(nats?.spec.replicas).toBe(3);
    const conf = (named(objects, 'ConfigMap', 'nats-config') as K8sObject & { data: Record<string, string> }).data['nats.conf']!;
    const routes = [...conf.matchAll(/nats:\/\/([\w-]+)\.([\w-]+):6222/g)];
    expect(routes.map((r) => r[1])).toEqual([0, 1, 2].map((i) => `nats-${i}`));
    expect(new Set(routes.map((r) => r[2]))).toEqual(new Set([nats!.spec.serviceName]));
    expect((named(objects, 'Service', nats!.spec.serviceName) as K8sObject & { spec: { clusterIP?: string } }).spec.clusterIP).toBe('None');
    expect(named(objects, 'PodDisruptionBudget', 'nats')).toBeDefined();
  });
});

describe('infra/k8s/base/nats-authorization.conf', () => {
  it('is the authorization block of the bus identities, passwords from the environment (regenerate: npx vitest run --project unit tools/k8s -u)', async () => {
    await expect(authorizationBlock(envPasswordOf)).toMatchFileSnapshot('../../infra/k8s/base/nats-authorization.conf');
  });
});
