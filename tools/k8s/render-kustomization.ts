import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * Renders a Kustomize directory for the checks of infra/k8s, on machines without kubectl (no
 * Kustomize binary can be installed on every CI machine). It knows only the fields infra/k8s uses
 * and fails on any other, so a manifest that starts using more cannot pass unchecked:
 * `resources` (files and directories), `namespace`, `labels` (`pairs`, `includeTemplates`),
 * `configMapGenerator` (`files`, as `path` or `key=path`; `literals`; `options.labels`,
 * `options.disableNameSuffixHash`), `replicas`, and `patches` (`path`: a strategic merge patch,
 * lists of named items merged by name, a field set to null removed). Generated names carry no content hash (kubectl
 * adds one): callers compare names with `withoutHashSuffix`. Where kubectl exists, the spec checks
 * that this renders what `kubectl kustomize` renders.
 */
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } } & Record<string, unknown>;

const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels', 'configMapGenerator', 'replicas', 'patches']);

interface ConfigMapGenerator {
  name: string;
  files?: string[];
  literals?: string[];
  options?: { labels?: Record<string, string>; disableNameSuffixHash?: boolean };
}

interface Kustomization {
  resources?: string[];
  namespace?: string;
  labels?: { pairs: Record<string, string>; includeTemplates?: boolean; includeSelectors?: boolean }[];
  configMapGenerator?: ConfigMapGenerator[];
  replicas?: { name: string; count: number }[];
  patches?: { path: string }[];
}

export function renderKustomization(dir: string): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  const k = readYamlDocs(file)[0] as Kustomization & Record<string, unknown>;
  const unknown = Object.keys(k).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) throw new Error(`${file}: fields this renderer does not know: ${unknown.join(', ')}`);

  const objects: K8sObject[] = [];
  for (const entry of k.resources ?? []) {
    const path = resolve(dir, entry);
    objects.push(...(statSync(path).isDirectory() ? renderKustomization(path) : (readYamlDocs(path) as K8sObject[])));
  }
  for (const generator of k.configMapGenerator ?? []) objects.push(generateConfigMap(dir, generator));
  for (const { name, count } of k.replicas ?? []) {
    const target = objects.find((o) => o.metadata.name === name && ['Deployment', 'StatefulSet'].includes(o.kind));
    if (!target) throw new Error(`${file}: replicas: no Deployment or StatefulSet named ${name}`);
    (target.spec as Record<string, unknown>).replicas = count;
  }
  for (const { path } of k.patches ?? []) {
    for (const patch of readYamlDocs(join(dir, path)) as K8sObject[]) {
      const target = objects.find((o) => o.kind === patch.kind && o.metadata.name === patch.metadata.name);
      if (!target) throw new Error(`${join(dir, path)}: no ${patch.kind} named ${patch.metadata.name} to patch`);
      mergeInto(target, patch);
    }
  }
  for (const { pairs, includeTemplates, includeSelectors } of k.labels ?? []) {
    if (includeSelectors) throw new Error(`${file}: labels.includeSelectors is not supported here`);
    for (const object of objects) {
      object.metadata.labels = { ...object.metadata.labels, ...pairs };
      const template = (object.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)?.template;
      if (includeTemplates && template) template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...pairs } };
    }
  }
  if (k.namespace !== undefined) {
    for (const object of objects) if (object.kind !== 'Namespace') object.metadata.namespace = k.namespace;
  }
  return objects;
}

/**
 * `sluice-env-fdk4c5b495` → `sluice-env`: the content hash kubectl appends to generated names (ten
 * hex digits with 0, 1, 3, a and e written g, h, k, m and t, so no word is mistaken for one).
 */
export function withoutHashSuffix(name: string): string {
  return name.replace(/-[2456789bcdfghkmt]{10}$/, '');
}

function readYamlDocs(file: string): unknown[] {
  if (!existsSync(file)) throw new Error(`${file}: no such file`);
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => doc.toJS() as unknown)
    .filter((doc) => doc !== null);
}

function generateConfigMap(dir: string, generator: ConfigMapGenerator): K8sObject {
  const unknown = Object.keys(generator.options ?? {}).filter((key) => key !== 'labels' && key !== 'disableNameSuffixHash');
  if (unknown.length > 0) throw new Error(`${dir}: configMapGenerator ${generator.name}: options this renderer does not know: ${unknown.join(', ')}`);
  const data: Record<string, string> = {};
  for (const entry of generator.files ?? []) {
    // `key=path` names the key; a plain path is keyed by its file name.
    const at = entry.indexOf('=');
    const [key, file] = at < 0 ? [basename(entry), entry] : [entry.slice(0, at), entry.slice(at + 1)];
    data[key] = readFileSync(join(dir, file), 'utf8');
  }
  for (const literal of generator.literals ?? []) {
    const at = literal.indexOf('=');
    data[literal.slice(0, at)] = literal.slice(at + 1);
  }
  const labels = generator.options?.labels;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name, ...(labels ? { labels: { ...labels } } : {}) }, data };
}

/** A strategic merge patch, as far as infra/k8s needs it: maps merge, lists of `name`d items merge by name. */
function mergeInto(target: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(patch)) {
    const current = target[key];
    if (value === null) delete target[key]; // a strategic merge patch's way to remove a field
    else if (isMap(value) && isMap(current)) mergeInto(current, value);
    else if (Array.isArray(value) && Array.isArray(current) && value.every((item) => isMap(item) && typeof item.name === 'string')) {
      // Items new to the list go first, as kubectl's strategic merge puts them (seen: a patch's env
      // entry ahead of the base's).
      const added: Record<string, unknown>[] = [];
      for (const item of value as Record<string, unknown>[]) {
        const same = (current as Record<string, unknown>[]).find((c) => isMap(c) && c.name === item.name);
        if (same) mergeInto(same, item);
        else added.push(item);
      }
      current.unshift(...added);
    } else target[key] = value;
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
