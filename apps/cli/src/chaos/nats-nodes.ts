/**
 * How many client connections a node of a NATS cluster holds, as its monitoring endpoint says:
 * what a target reports for each node, so stop-nats-node can pick the busiest one.
 */

/** Client connections of the node whose monitoring endpoint is `monitorUrl` (`/varz`), or undefined when it does not answer. */
export async function varzConnections(monitorUrl: string | undefined, timeoutMs = 2_000): Promise<number | undefined> {
  if (monitorUrl === undefined) return undefined;
  try {
    const res = await fetch(`${monitorUrl}/varz`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    const { connections } = (await res.json()) as { connections?: unknown };
    return typeof connections === 'number' ? connections : undefined;
  } catch {
    return undefined;
  }
}
