// Single requests to a cluster that has been idle: what one user's request pays when nothing else
// is running. Each process on the path has slept since the last request, and a sleeping process on
// this VM wakes slowly (tools/bench/idle-transit.mjs), so this is not the open loop's overhead.
import { setTimeout as sleep } from 'node:timers/promises';
import { createAgent, sendRequest } from './load-generator.mjs';

/**
 * Sends `n` requests one at a time on one keep-alive connection, each after the cluster has been
 * idle for `gapMs` (the pause starts when the previous answer has arrived). One request first opens
 * the connection and is not counted. Returns the n records (load-generator's).
 */
export async function idleRequests({ url, request, gapMs, n }) {
  const agent = createAgent({ maxSockets: 1 });
  try {
    await sendRequest({ url, agent, request });
    const records = [];
    for (let i = 0; i < n; i++) {
      await sleep(gapMs);
      records.push(await sendRequest({ url, agent, request }));
    }
    return records;
  } finally {
    agent.destroy();
  }
}
