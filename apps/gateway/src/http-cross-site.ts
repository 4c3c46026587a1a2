import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import type { SluiceConfig } from '@sluice/config';
import { isJsonContentType } from '@sluice/openai';

/** Why an admin write is refused before anything else is read: the status and what to do. */
export interface CrossSiteRefusal {
  readonly status: 403 | 415;
  readonly code: 'unsupported_media_type' | 'cross_site_request' | 'host_not_allowed';
  readonly message: string;
}

type AdminAccess = SluiceConfig['gateway']['admin'];

/**
 * The checks an admin write (a route that changes the cluster) passes before its key is looked at
 * or its body read, each against one way a web page could make a browser on the operator's
 * machine change the cluster:
 *
 * 1. `Content-Type: application/json`, else 415. A page can send `text/plain`, a form's types or
 *    none cross-site without the browser asking the server first (a CORS "simple request"); JSON
 *    needs a preflight, which the gateway never answers, so the browser does not send the write.
 * 2. No `Origin`, or the gateway's own (same host and port as `Host`), or one in
 *    `gateway.admin.allowedOrigins`, else 403. A browser names the page's origin on every POST;
 *    curl, the SDKs and the CLI send none.
 * 3. A `Host` that is an IP address, `localhost` or in `gateway.admin.allowedHosts`, else 403. A
 *    DNS-rebinding page is same-origin with the gateway under a domain of its own, which then
 *    resolves to the gateway's address: `Host` still carries that domain.
 */
export function crossSiteRefusal(headers: IncomingHttpHeaders, access: AdminAccess): CrossSiteRefusal | undefined {
  const contentType = headers['content-type'];
  if (!isJsonContentType(contentType)) {
    const sent = contentType === undefined ? 'no Content-Type' : `Content-Type "${contentType.slice(0, 100)}"`;
    return { status: 415, code: 'unsupported_media_type', message: `admin writes take JSON only, and this one has ${sent}: send Content-Type: application/json` };
  }
  const host = headers.host;
  const hostName = host === undefined ? undefined : hostNameOf(host);
  if (hostName !== undefined && !isAllowedHost(hostName, access.allowedHosts)) {
    return { status: 403, code: 'host_not_allowed', message: `admin writes must be addressed to an IP address, localhost or a name in gateway.admin.allowedHosts; Host "${host!.slice(0, 100)}" is none of them` };
  }
  const origin = headers.origin;
  if (origin !== undefined && !isAllowedOrigin(origin, host, access.allowedOrigins)) {
    return { status: 403, code: 'cross_site_request', message: `admin writes are not taken from pages of another origin: Origin "${origin.slice(0, 100)}" is neither this gateway's nor in gateway.admin.allowedOrigins` };
  }
  return undefined;
}

/** The host of a `Host` header without its port, lower case; an IPv6 literal without its brackets. */
export function hostNameOf(host: string): string {
  const bracketed = /^\[([^\]]*)\](:\d*)?$/.exec(host);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return host.replace(/:\d*$/, '').toLowerCase();
}

function isAllowedHost(name: string, allowed: readonly string[]): boolean {
  return isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost') || allowed.includes(name);
}

/** Same origin as the gateway (host and port as the request addressed it, either scheme: a TLS proxy may sit in front), or listed. */
function isAllowedOrigin(origin: string, host: string | undefined, allowed: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (a sandboxed frame, a file) or garbage
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (allowed.includes(url.origin)) return true;
  if (host === undefined) return false;
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  const [originHost, originPort] = [hostNameOf(url.host), url.port || defaultPort];
  const requestPort = /:(\d+)$/.exec(host.replace(/^\[[^\]]*\]/, ''))?.[1] ?? defaultPort;
  return originHost === hostNameOf(host) && originPort === requestPort;
}
