import type { InstanceView, PolicyRequest } from '../cluster-view.js';

/** Test builders for this library's specs: every field has a dull default; a test names what it is about. */
export function instanceView(overrides: Partial<InstanceView> & Pick<InstanceView, 'instanceId'>): InstanceView {
  return {
    workerId: overrides.instanceId,
    rank: 0,
    model: 'qwen3-14b',
    totalKvBlocks: 17_600,
    inFlight: 0,
    queueDepth: 0,
    batchSize: 0,
    kvUtilization: 0,
    activePrefillTokens: 0,
    activeDecodeBlocks: 0,
    snapshotAgeMs: 0,
    ...overrides,
  };
}

export function policyRequest(overrides: Partial<PolicyRequest> = {}): PolicyRequest {
  return {
    id: 'r1',
    model: 'qwen3-14b',
    inputTokens: 512,
    maxTokens: 128,
    priority: 3,
    sloClass: 'standard',
    fairnessId: 'default',
    blockHashes: [],
    ...overrides,
  };
}
