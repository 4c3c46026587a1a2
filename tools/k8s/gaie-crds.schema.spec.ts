import { describe, expect, it } from 'vitest';
import { InferenceObjectiveSchema, InferencePoolSchema } from './gaie-crds.schema.js';

const pool = (spec: Record<string, unknown>) => ({
  apiVersion: 'inference.networking.k8s.io/v1',
  kind: 'InferencePool',
  metadata: { name: 'p' },
  spec: { selector: { matchLabels: { app: 'w' } }, targetPorts: [{ number: 8000 }], ...spec },
});

describe("GAIE's CRDs as schemas", () => {
  it('accept a pool and an objective as the CRDs do', () => {
    expect(InferencePoolSchema.safeParse(pool({ endpointPickerRef: { name: 'epp', port: { number: 9002 }, failureMode: 'FailClose' } })).success).toBe(true);
    expect(InferenceObjectiveSchema.safeParse({ apiVersion: 'inference.networking.x-k8s.io/v1alpha2', kind: 'InferenceObjective', metadata: { name: 'o' }, spec: { poolRef: { name: 'p' } } }).success).toBe(true);
  });

  it.each([
    ['no target port', pool({ targetPorts: [] })],
    ['nine target ports', pool({ targetPorts: Array.from({ length: 9 }, (_, i) => ({ number: 8000 + i })) })],
    ['a port twice (the CEL rule)', pool({ targetPorts: [{ number: 8000 }, { number: 8000 }] })],
    ['a Service picker without a port (the CEL rule)', pool({ endpointPickerRef: { name: 'epp' } })],
    ['an unknown failure mode', pool({ endpointPickerRef: { name: 'epp', port: { number: 9002 }, failureMode: 'Retry' } })],
    ['an unknown protocol', pool({ appProtocol: 'grpc' })],
    ['a field the CRD does not have', pool({ modelServers: {} })],
  ])('refuse a pool with %s', (_, object) => {
    expect(InferencePoolSchema.safeParse(object).success).toBe(false);
  });

  it('refuse an objective without its pool', () => {
    expect(InferenceObjectiveSchema.safeParse({ apiVersion: 'inference.networking.x-k8s.io/v1alpha2', kind: 'InferenceObjective', metadata: { name: 'o' }, spec: { priority: 1 } }).success).toBe(false);
  });
});
