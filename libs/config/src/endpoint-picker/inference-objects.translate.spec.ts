import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { translateInferenceObjects } from './inference-objects.translate.js';

const documents = (name: string): unknown[] =>
  parseAllDocuments(readFileSync(fileURLToPath(new URL(`../../fixtures/endpoint-picker/${name}`, import.meta.url)), 'utf8')).map((d) => d.toJS());

const pool = (spec: Record<string, unknown>, name = 'pool-a') => ({ apiVersion: 'inference.networking.k8s.io/v1', kind: 'InferencePool', metadata: { name }, spec: { selector: { matchLabels: { app: 'w' } }, targetPorts: [{ number: 8000 }], ...spec } });
const objective = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'inference.networking.x-k8s.io/v1alpha2', kind: 'InferenceObjective', metadata: { name }, spec });

describe('translateInferenceObjects', () => {
  it("reads GAIE's pool and objectives into the pool name, the worker port and the priority table", () => {
    const { fragment, problems } = translateInferenceObjects(documents('gaie-inference-objects.yaml'));
    expect(problems).toEqual([]);
    expect(fragment).toEqual({
      inferencePool: 'vllm-qwen3-32b',
      worker: { port: 8000 },
      inferenceObjectives: [
        { name: 'small-segment-lora', priority: 1 },
        { name: 'base-model', priority: 2 },
        { name: 'base-model-cpu', priority: 2 },
      ],
    });
  });

  it('takes the pool name from the objectives when no pool is given, and priority 0 when an objective sets none', () => {
    const { fragment, problems } = translateInferenceObjects([objective('batch', { poolRef: { name: 'p' } })]);
    expect(problems).toEqual([]);
    expect(fragment).toEqual({ inferencePool: 'p', inferenceObjectives: [{ name: 'batch', priority: 0 }] });
  });

  it('reads the items of a kind: List', () => {
    const { fragment } = translateInferenceObjects([{ apiVersion: 'v1', kind: 'List', items: [pool({}), objective('o', { priority: 3, poolRef: { name: 'pool-a' } })] }]);
    expect(fragment).toMatchObject({ inferencePool: 'pool-a', inferenceObjectives: [{ name: 'o', priority: 3 }] });
  });

  it.each([
    ['a fail-open picker', [pool({ endpointPickerRef: { name: 'epp', port: { number: 9002 }, failureMode: 'FailOpen' } })], 'documents[0].spec.endpointPickerRef.failureMode: "FailOpen" is not supported: sluice\'s gateway never routes around its router (FailClose)'],
    ['a second target port', [pool({ targetPorts: [{ number: 8000 }, { number: 8001 }] })], 'documents[0].spec.targetPorts[1]: is not supported: a sluice worker process serves all its instances on one port'],
    ['gRPC to the workers', [pool({ appProtocol: 'kubernetes.io/h2c' })], 'documents[0].spec.appProtocol: "kubernetes.io/h2c" is not supported: sluice\'s workers speak HTTP/1.1 ("http")'],
    ['an objective of another pool', [pool({}), objective('o', { poolRef: { name: 'pool-b' } })], 'documents[1].spec.poolRef.name: "pool-b" is not the pool "pool-a": sluice serves one pool'],
    ['two pools', [pool({}), pool({}, 'pool-b')], 'documents: 2 InferencePools (pool-a, pool-b): sluice serves one pool'],
    ['another kind of object', [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'r' } }], 'documents[0]: gateway.networking.k8s.io/v1 HTTPRoute is not read by sluice: give InferencePool (inference.networking.k8s.io/v1) and InferenceObjective (inference.networking.x-k8s.io/v1alpha2) objects'],
    ['an older InferencePool version', [{ ...pool({}), apiVersion: 'inference.networking.x-k8s.io/v1alpha2' }], 'documents[0]: inference.networking.x-k8s.io/v1alpha2 InferencePool is not read by sluice: give InferencePool (inference.networking.k8s.io/v1) and InferenceObjective (inference.networking.x-k8s.io/v1alpha2) objects'],
    ['an unknown spec field', [objective('o', { poolRef: { name: 'p' }, criticality: 'Critical' })], 'documents[0].spec.criticality: is not a field sluice reads in an InferenceObjective spec (known: priority, poolRef)'],
  ])('refuses %s, naming its path', (_, docs, problem) => {
    expect(translateInferenceObjects(docs).problems).toContain(problem);
  });
});
