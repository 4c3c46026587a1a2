import { describe, expect, it } from 'vitest';
import { crossSiteRefusal, hostNameOf } from './http-cross-site.js';

const open = { allowedHosts: [], allowedOrigins: [] };
const json = { 'content-type': 'application/json', host: '127.0.0.1:8080' };

describe('crossSiteRefusal: what an admin write must not look like', () => {
  it('takes JSON from curl, the SDKs and the gateway own pages', () => {
    expect(crossSiteRefusal(json, open)).toBeUndefined();
    expect(crossSiteRefusal({ ...json, 'content-type': 'Application/JSON; charset=utf-8' }, open)).toBeUndefined();
    expect(crossSiteRefusal({ ...json, origin: 'http://127.0.0.1:8080' }, open)).toBeUndefined();
    expect(crossSiteRefusal({ ...json, host: 'localhost:8080', origin: 'https://localhost:8080' }, open)).toBeUndefined();
    expect(crossSiteRefusal({ ...json, host: '[::1]:8080' }, open)).toBeUndefined();
    expect(crossSiteRefusal({ 'content-type': 'application/json' }, open)).toBeUndefined(); // HTTP/1.0, no Host: no browser
  });

  it.each([
    ['text/plain', { ...json, 'content-type': 'text/plain' }],
    ['a form', { ...json, 'content-type': 'application/x-www-form-urlencoded' }],
    ['no content type', { host: '127.0.0.1:8080' }],
    ['JSON as another type', { ...json, 'content-type': 'application/jsonx' }],
  ])('refuses %s with 415', (_, headers) => {
    expect(crossSiteRefusal(headers, open)).toMatchObject({ status: 415, code: 'unsupported_media_type', message: expect.stringMatching(/send Content-Type: application\/json$/) });
  });

  it.each([
    ['another site', 'https://evil.example'],
    ['the same host on another port', 'http://127.0.0.1:3000'],
    ['a sandboxed frame', 'null'],
    ['another scheme', 'file:///etc/passwd'],
  ])('refuses a page of %s with 403', (_, origin) => {
    expect(crossSiteRefusal({ ...json, origin }, open)).toMatchObject({ status: 403, code: 'cross_site_request' });
  });

  it('refuses a rebound domain however same-origin its page is, and takes the names it is told to', () => {
    const rebound = { ...json, host: 'rebind.evil.example:8080', origin: 'http://rebind.evil.example:8080' };
    expect(crossSiteRefusal(rebound, open)).toMatchObject({ status: 403, code: 'host_not_allowed', message: expect.stringMatching(/gateway\.admin\.allowedHosts/) });
    const listed = { allowedHosts: ['gateway.internal'], allowedOrigins: ['https://grafana.internal'] };
    expect(crossSiteRefusal({ ...json, host: 'GATEWAY.internal:8080' }, listed)).toBeUndefined();
    expect(crossSiteRefusal({ ...json, host: 'gateway.internal:8080', origin: 'https://grafana.internal' }, listed)).toBeUndefined();
    expect(crossSiteRefusal({ ...json, host: 'gateway.internal:8080', origin: 'https://grafana.internal:444' }, listed)).toMatchObject({ code: 'cross_site_request' });
  });

  it('reads the host name of a Host header', () => {
    expect(hostNameOf('Example.com:80')).toBe('example.com');
    expect(hostNameOf('[::1]:8080')).toBe('::1');
    expect(hostNameOf('10.0.0.1')).toBe('10.0.0.1');
  });
});
