// NATS messages per request, read from nats-server's monitoring endpoint: `/varz` counts every
// message its clients published (`in_msgs`) and every copy it delivered to a subscriber
// (`out_msgs`) since it started, so two readings around a run give what the run cost the bus,
// background traffic (load snapshots, heartbeats) included.

/** The server's message counters now: { published, delivered }, or undefined without a monitoring endpoint. */
export async function natsMessageCounts(monitorUrl) {
  if (monitorUrl === undefined) return undefined;
  const varz = await (await fetch(`${monitorUrl}/varz`)).json();
  return { published: varz.in_msgs, delivered: varz.out_msgs };
}

/** Messages per request between two readings: { published, delivered }, or undefined when either reading or the count is missing. */
export function messagesPerRequest(before, after, requests) {
  if (before === undefined || after === undefined || !(requests > 0)) return undefined;
  return { published: (after.published - before.published) / requests, delivered: (after.delivered - before.delivered) / requests };
}
