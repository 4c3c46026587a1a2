import { describe, expect, it } from 'vitest';
import { BoundedLabel } from './bounded-label.js';
import { EPP_OUTPUT_TOKEN_BUCKETS, EPP_REQUEST_SIZE_BUCKETS, EPP_RESPONSE_SIZE_BUCKETS, EPP_TOKEN_BUCKETS, EPP_TTFT_BUCKETS, deprecatedEppHelp } from './endpoint-picker.js';

describe('BoundedLabel', () => {
  it('keeps the first `limit` distinct values and maps every later one to the overflow value', () => {
    const label = new BoundedLabel(2);
    expect(['a', 'b', 'a', 'c', 'b', 'd'].map((v) => label.of(v))).toEqual(['a', 'b', 'a', 'other', 'b', 'other']);
    expect(label.size).toBe(2);
  });

  it('stays bounded under a flood of distinct values', () => {
    const label = new BoundedLabel(1000);
    const written = new Set(Array.from({ length: 50_000 }, (_, i) => label.of(`tenant-${i}`)));
    expect(written.size).toBe(1001);
    expect(written.has('other')).toBe(true);
    expect(written.has('tenant-999')).toBe(true);
    expect(written.has('tenant-1000')).toBe(false);
  });

  it('a released value makes room for a new one', () => {
    const label = new BoundedLabel(1, '_over');
    expect(label.of('a')).toBe('a');
    expect(label.of('b')).toBe('_over');
    label.release('a');
    expect(label.of('b')).toBe('b');
  });

  it('a limit of 0 collapses every value', () => {
    expect(new BoundedLabel(0).of('a')).toBe('other');
  });
});

describe('the Endpoint Picker ladders', () => {
  it('are the llm-d ones', () => {
    expect(EPP_REQUEST_SIZE_BUCKETS.at(0)).toBe(64);
    expect(EPP_REQUEST_SIZE_BUCKETS.at(-1)).toBe(1024 ** 3);
    expect(EPP_RESPONSE_SIZE_BUCKETS).toEqual([1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]);
    expect(EPP_TOKEN_BUCKETS.at(-1)).toBe(1048576);
    expect(EPP_TOKEN_BUCKETS).toHaveLength(19);
    expect(EPP_OUTPUT_TOKEN_BUCKETS).toEqual([1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]);
    expect(EPP_TTFT_BUCKETS.at(-1)).toBe(120);
    expect(EPP_TTFT_BUCKETS).toHaveLength(24);
  });

  it('a deprecated twin names its replacement after the stability tag', () => {
    expect(deprecatedEppHelp('llm_d_epp_request_total', 'Requests.')).toBe('[ALPHA] [Deprecated: Use llm_d_epp_request_total] Requests.');
  });
});
