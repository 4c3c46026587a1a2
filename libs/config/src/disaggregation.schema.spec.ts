import { describe, expect, it } from 'vitest';
import { ConfigSchema } from './config.schema.js';

const problems = (input: unknown) => {
  const result = ConfigSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

const disaggregated = { worker: { instances: 4, roles: { prefill: 2, decode: 2 } }, router: { disaggregation: { decider: 'dynamo', maxLocalPrefillLength: 512 } } };

describe('ConfigSchema: disaggregated prefill/decode', () => {
  it('takes roles with a decider, and the transfer link by name or by its three numbers', () => {
    expect(problems(disaggregated)).toEqual([]);
    expect(problems({ ...disaggregated, worker: { ...disaggregated.worker, kvTransfer: 'tcp' } })).toEqual([]);
    expect(problems({ ...disaggregated, worker: { ...disaggregated.worker, kvTransfer: { setupUs: 10, perBlockUs: 1, bandwidthBytesPerSecond: 1e11 } } })).toEqual([]);
  });

  it('refuses each half without the other, naming the key', () => {
    expect(problems({ worker: disaggregated.worker })).toEqual([expect.stringMatching(/^worker\.roles: .*router\.disaggregation/)]);
    expect(problems({ router: disaggregated.router })).toEqual([expect.stringMatching(/^router\.disaggregation: no worker has a prefill or decode instance/)]);
    expect(problems({ worker: { kvTransfer: 'nixl' } })).toEqual([expect.stringMatching(/^worker\.kvTransfer: takes effect only with worker\.roles/)]);
  });

  it('refuses more roles than instances, decoders with nothing to prefill for them, BLIS mode, and an unknown link or decider', () => {
    expect(problems({ ...disaggregated, worker: { instances: 2, roles: { prefill: 2, decode: 2 } } })).toEqual([expect.stringMatching(/^worker\.roles: 2 prefill \+ 2 decode instances is more than worker\.instances \(2\)/)]);
    expect(problems({ ...disaggregated, worker: { instances: 2, roles: { decode: 2 } } })).toEqual([expect.stringMatching(/^worker\.roles: every instance decodes only/)]);
    expect(problems({ ...disaggregated, worker: { instances: 2, roles: { prefill: 2 } } })).toEqual([expect.stringMatching(/^worker\.roles: every instance prefills only/)]);
    expect(problems({ ...disaggregated, worker: { ...disaggregated.worker, compat: 'blis' } })).toEqual([expect.stringMatching(/^worker\.roles: BLIS parity mode/)]);
    expect(problems({ ...disaggregated, worker: { ...disaggregated.worker, kvTransfer: 'infiniband' } })[0]).toMatch(/^worker\.kvTransfer/);
    expect(problems({ ...disaggregated, router: { disaggregation: { decider: 'dynamo' } } })[0]).toMatch(/^router\.disaggregation\.maxLocalPrefillLength/);
    expect(problems({ ...disaggregated, worker: { instances: 4, roles: {} } })[0]).toMatch(/^worker\.roles: name at least one/);
  });
});
