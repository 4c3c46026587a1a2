import { describe, expect, it } from 'vitest';
import { FlowQueueReportSchema, MAX_REPORTED_BANDS } from './flow-queue-report.js';

describe('FlowQueueReportSchema', () => {
  const band = { model: 'qwen3-14b', priority: -2, requests: 3 };

  it('takes a report of bands by model and priority, and an empty one', () => {
    expect(FlowQueueReportSchema.parse({ processId: 'flow-1', atUs: 5, bands: [band] })).toEqual({ processId: 'flow-1', atUs: 5, bands: [band] });
    expect(FlowQueueReportSchema.parse({ processId: 'flow-1', atUs: 5, bands: [] }).bands).toEqual([]);
  });

  it('refuses empty bands, fractional counts, unknown keys and more bands than a controller keeps', () => {
    const bad = (bands: unknown[], extra: Record<string, unknown> = {}) => FlowQueueReportSchema.safeParse({ processId: 'f', atUs: 1, bands, ...extra }).success;
    expect(bad([{ ...band, requests: 0 }])).toBe(false);
    expect(bad([{ ...band, requests: 1.5 }])).toBe(false);
    expect(bad([{ ...band, tenant: 'x' }])).toBe(false);
    expect(bad([], { extra: 1 })).toBe(false);
    expect(bad(Array.from({ length: MAX_REPORTED_BANDS + 1 }, () => band))).toBe(false);
  });
});
