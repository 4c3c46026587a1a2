import { describe, expect, it } from 'vitest';
import { eppErrorCodeOf, httpHandlerOf } from './gateway.metrics.js';

describe('eppErrorCodeOf', () => {
  it.each([
    ['ok', 200, ''],
    ['invalid_request', 400, 'BadRequest'],
    ['body_too_large', 413, 'BadRequest'],
    ['invalid_api_key', 401, 'Unauthorized'],
    ['flow_capacity', 429, 'ResourceExhausted'],
    ['no_worker', 503, 'ServiceUnavailable'],
    ['timeout', 504, 'ServiceUnavailable'],
    ['internal', 500, 'Internal'],
    ['injected_server_error', 503, 'ModelServerError'],
  ] as const)('%s (%i) → %s', (reason, status, code) => {
    expect(eppErrorCodeOf(reason, status)).toBe(code);
  });
});

describe('httpHandlerOf', () => {
  it('names a route by its path, an unknown path none, and leaves health and metrics out', () => {
    expect(httpHandlerOf('/v1/chat/completions?x=1')).toBe('/v1/chat/completions');
    expect(httpHandlerOf('/V1/Models/')).toBe('/v1/models');
    expect(httpHandlerOf('/tenant-1234/anything')).toBe('none');
    expect(httpHandlerOf('/metrics')).toBeUndefined();
    expect(httpHandlerOf('/healthz')).toBeUndefined();
  });
});
