import { Problems, at, checkFields, isMapping, listAt, type Tree } from './yaml-walk.js';

/*
 * InferencePool and InferenceObjective objects, as a cluster admin applies them, into sluice.yaml's
 * `inferencePool`, `worker.port` and `inferenceObjectives`. The APIs are the Gateway API Inference
 * Extension's at kubernetes-sigs/gateway-api-inference-extension@1748e829d1161147aaf35e76699ec86fd88406d2:
 * InferencePool `inference.networking.k8s.io/v1` (api/v1/inferencepool_types.go) and
 * InferenceObjective `inference.networking.x-k8s.io/v1alpha2` (apix/v1alpha2/inferenceobjective_types.go).
 * Pure, as the EndpointPickerConfig translator: documents in, a fragment, what mapped and what was refused out.
 */

export const INFERENCE_POOL_API_VERSION = 'inference.networking.k8s.io/v1';
export const INFERENCE_OBJECTIVE_API_VERSION = 'inference.networking.x-k8s.io/v1alpha2';

export interface InferenceObjectsTranslation {
  readonly fragment: Tree;
  readonly mapped: readonly string[];
  readonly problems: readonly string[];
}

const OBJECT_FIELDS = ['apiVersion', 'kind', 'metadata', 'spec', 'status'];
/** Object metadata is bookkeeping of the API server; only the name means something to sluice. */
const METADATA_FIELDS = ['name', 'namespace', 'labels', 'annotations', 'uid', 'resourceVersion', 'generation', 'creationTimestamp'];

function nameOf(object: Tree, path: string, problems: Problems): string | undefined {
  const metadata = object['metadata'];
  if (!isMapping(metadata) || typeof metadata['name'] !== 'string' || metadata['name'] === '') {
    problems.add(at(path, 'metadata.name'), 'is required');
    return undefined;
  }
  checkFields(metadata, METADATA_FIELDS, at(path, 'metadata'), 'object metadata', problems);
  return metadata['name'];
}

/** A v1 InferencePool: its name, its one target port; what sluice cannot do is refused. */
function readPool(pool: Tree, path: string, fragment: Tree, problems: Problems, mapped: string[]): string | undefined {
  const name = nameOf(pool, path, problems);
  const spec = pool['spec'];
  const specPath = at(path, 'spec');
  if (!isMapping(spec)) {
    problems.add(specPath, 'is required: selector and targetPorts');
    return name;
  }
  checkFields(spec, ['selector', 'targetPorts', 'appProtocol', 'endpointPickerRef'], specPath, 'an InferencePool spec', problems);
  if (name !== undefined) {
    fragment['inferencePool'] = name;
    mapped.push(`${path} metadata.name → inferencePool: ${name}`);
  }
  const selector = spec['selector'];
  if (!isMapping(selector) || !isMapping(selector['matchLabels'])) problems.add(at(specPath, 'selector.matchLabels'), 'is required (the pool\'s pods)');
  else {
    checkFields(selector, ['matchLabels'], at(specPath, 'selector'), 'a selector', problems);
    mapped.push(`${specPath}.selector → every worker of the cluster (sluice serves one pool; infra/k8s labels its worker pods to match)`);
  }
  const ports = listAt(spec['targetPorts'], at(specPath, 'targetPorts'), problems);
  if (ports.length === 0) problems.add(at(specPath, 'targetPorts'), 'needs one port');
  ports.slice(1).forEach((_, i) => problems.add(at(at(specPath, 'targetPorts'), i + 1), 'is not supported: a sluice worker process serves all its instances on one port'));
  const port = ports[0];
  if (isMapping(port)) {
    checkFields(port, ['number'], at(at(specPath, 'targetPorts'), 0), 'a port', problems);
    const number = port['number'];
    if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > 65535) problems.add(at(at(specPath, 'targetPorts'), 0) + '.number', 'must be a port number, 1 to 65535');
    else {
      fragment['worker'] = { port: number };
      mapped.push(`${specPath}.targetPorts[0].number → worker.port: ${number}`);
    }
  } else if (port !== undefined) problems.add(at(at(specPath, 'targetPorts'), 0), 'must be a mapping with number');
  if (spec['appProtocol'] !== undefined && spec['appProtocol'] !== 'http') {
    problems.add(at(specPath, 'appProtocol'), `${JSON.stringify(spec['appProtocol'])} is not supported: sluice's workers speak HTTP/1.1 ("http")`);
  }
  const picker = spec['endpointPickerRef'];
  if (isMapping(picker)) {
    checkFields(picker, ['group', 'kind', 'name', 'port', 'failureMode'], at(specPath, 'endpointPickerRef'), 'an endpointPickerRef', problems);
    if (picker['failureMode'] === 'FailOpen') problems.add(at(specPath, 'endpointPickerRef.failureMode'), '"FailOpen" is not supported: sluice\'s gateway never routes around its router (FailClose)');
    mapped.push(`${specPath}.endpointPickerRef → sluice's admission, flow controller and router (FailClose)`);
  }
  return name;
}

/** A v1alpha2 InferenceObjective: its name and priority (unset: 0, served as a request naming no priority). */
function readObjective(objective: Tree, path: string, problems: Problems): { name: string; priority: number; pool: unknown; path: string } | undefined {
  const name = nameOf(objective, path, problems);
  const spec = objective['spec'];
  const specPath = at(path, 'spec');
  if (!isMapping(spec)) {
    problems.add(specPath, 'is required: poolRef');
    return undefined;
  }
  checkFields(spec, ['priority', 'poolRef'], specPath, 'an InferenceObjective spec', problems);
  const priority = spec['priority'] ?? 0;
  if (!Number.isInteger(priority)) problems.add(at(specPath, 'priority'), 'must be an integer');
  const poolRef = spec['poolRef'];
  if (!isMapping(poolRef) || typeof poolRef['name'] !== 'string') {
    problems.add(at(specPath, 'poolRef.name'), 'is required');
    return undefined;
  }
  checkFields(poolRef, ['group', 'kind', 'name'], at(specPath, 'poolRef'), 'a poolRef', problems);
  return name === undefined ? undefined : { name, priority: priority as number, pool: poolRef['name'], path };
}

/** Every document must be an InferencePool or an InferenceObjective (a `kind: List` is read item by item). */
export function translateInferenceObjects(documents: readonly unknown[]): InferenceObjectsTranslation {
  const problems = new Problems();
  const mapped: string[] = [];
  const fragment: Tree = {};
  const pools: string[] = [];
  const objectives: NonNullable<ReturnType<typeof readObjective>>[] = [];
  const items = documents.flatMap((doc, i) =>
    isMapping(doc) && doc['kind'] === 'List' ? listAt(doc['items'], at(`documents[${i}]`, 'items'), problems).map((item, j) => ({ item, path: at(at(`documents[${i}]`, 'items'), j) })) : [{ item: doc, path: `documents[${i}]` }],
  );
  for (const { item, path } of items) {
    if (item === null || item === undefined) continue; // an empty document between two `---`
    if (!isMapping(item)) {
      problems.add(path, 'must be a Kubernetes object');
      continue;
    }
    checkFields(item, OBJECT_FIELDS, path, 'a Kubernetes object', problems);
    const kind = item['kind'];
    const apiVersion = item['apiVersion'];
    if (kind === 'InferencePool' && apiVersion === INFERENCE_POOL_API_VERSION) {
      const name = readPool(item, path, fragment, problems, mapped);
      if (name !== undefined) pools.push(name);
    } else if (kind === 'InferenceObjective' && apiVersion === INFERENCE_OBJECTIVE_API_VERSION) {
      const objective = readObjective(item, path, problems);
      if (objective !== undefined) objectives.push(objective);
    } else {
      problems.add(path, `${String(apiVersion)} ${String(kind)} is not read by sluice: give InferencePool (${INFERENCE_POOL_API_VERSION}) and InferenceObjective (${INFERENCE_OBJECTIVE_API_VERSION}) objects`);
    }
  }
  pools.slice(1).forEach(() => problems.add('documents', `${pools.length} InferencePools (${pools.join(', ')}): sluice serves one pool`));
  const pool = pools[0] ?? (objectives[0]?.pool as string | undefined);
  if (pools.length === 0 && pool !== undefined) {
    fragment['inferencePool'] = pool;
    mapped.push(`${objectives[0]?.path}.spec.poolRef.name → inferencePool: ${pool}`);
  }
  for (const objective of objectives) {
    if (objective.pool !== pool) problems.add(`${objective.path}.spec.poolRef.name`, `"${String(objective.pool)}" is not the pool "${pool}": sluice serves one pool`);
    mapped.push(`${objective.path} ${objective.name} → inferenceObjectives: priority ${objective.priority}`);
  }
  if (objectives.length > 0) fragment['inferenceObjectives'] = objectives.map(({ name, priority }) => ({ name, priority }));
  return { fragment, mapped, problems: problems.lines.filter((line, i, all) => all.indexOf(line) === i) };
}
