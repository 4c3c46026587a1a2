import { describe, expect, it } from 'vitest';
import { inferenceRouteOf } from './inference-routes.js';

describe('inferenceRouteOf', () => {
  it('matches the two inference routes as Express did: POST only, any query, any case, one trailing slash', () => {
    expect(inferenceRouteOf('POST', '/v1/completions')).toBe('completion');
    expect(inferenceRouteOf('POST', '/v1/chat/completions')).toBe('chat');
    expect(inferenceRouteOf('POST', '/v1/completions?stream=1')).toBe('completion');
    expect(inferenceRouteOf('POST', '/V1/Chat/Completions/')).toBe('chat');
  });

  it('leaves everything else to the framework', () => {
    expect(inferenceRouteOf('GET', '/v1/completions')).toBeUndefined();
    expect(inferenceRouteOf('POST', '/v1/models')).toBeUndefined();
    expect(inferenceRouteOf('POST', '/v1/completions//')).toBeUndefined();
    expect(inferenceRouteOf('POST', '/v1/completionsx')).toBeUndefined();
    expect(inferenceRouteOf(undefined, undefined)).toBeUndefined();
  });
});
