import { z } from 'zod';

/**
 * `gateway.admin`: who may change the cluster through the gateway's admin routes
 * (`POST /busy_threshold`) from a browser's reach (docs/security.md, "Admin routes"). A write must
 * come as `application/json` (a cross-site form or `fetch` without a CORS preflight cannot send
 * that), from no `Origin` or the gateway's own or one listed here, and name in `Host` an IP address,
 * `localhost` or a name listed here (a DNS-rebinding page names its own domain). API keys are
 * `gateway.auth`'s business: these checks hold with or without it.
 */

/** A DNS name as `Host` carries it, without the port: letters, digits, `-`, labels joined by `.`. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

const HostName = z
  .string()
  .regex(HOST_NAME, 'must be a host name without scheme, port or wildcard (e.g. gateway.example.com); IP addresses and localhost are always allowed')
  .transform((host) => host.toLowerCase());

/** An origin as browsers send it: `http` or `https`, host, optional port, nothing after. */
const Origin = z.string().transform((value, ctx) => {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== value.replace(/\/$/, '').toLowerCase()) {
    ctx.addIssue({ code: 'custom', message: `"${value.slice(0, 100)}" is not an origin: write scheme://host[:port], e.g. https://grafana.example.com, with no path` });
    return z.NEVER;
  }
  return url.origin;
});

export const GatewayAdminSchema = z.strictObject({
  /** Host names, besides IP addresses and `localhost`, that an admin write may be addressed to (the `Host` header). */
  allowedHosts: z.array(HostName).max(64).default([]),
  /** Origins, besides the gateway's own, whose pages may send admin writes (a dashboard of yours). */
  allowedOrigins: z.array(Origin).max(64).default([]),
});
export type GatewayAdminConfig = z.infer<typeof GatewayAdminSchema>;
