import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpHeaders } from '@sluice/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { WARM_UP_FAIRNESS_ID, warmUp } from './warm-up.js';

/** warmUp against a real HTTP server standing in for the gateway: what it sends, and when it gives up. */
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function gateway(answer: (n: number, path: string, fairnessId: string | undefined) => number | 'hang'): Promise<string> {
  let n = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = answer(n++, req.url ?? '', req.headers[httpHeaders.fairnessId] as string | undefined);
      if (status !== 'hang') res.writeHead(status).end('{}');
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('warmUp', () => {
  it('sends every request, completion and chat alike, as the warm-up tenant', async () => {
    const seen: string[] = [];
    const url = await gateway((_, path, fairnessId) => (seen.push(`${path} ${fairnessId}`), 200));
    expect(await warmUp(url, { requests: 20, model: 'm' })).toMatchObject({ ok: 20, failed: 0 });
    expect(new Set(seen)).toEqual(new Set([`/v1/completions ${WARM_UP_FAIRNESS_ID}`, `/v1/chat/completions ${WARM_UP_FAIRNESS_ID}`]));
  });

  it('stops at the first failure instead of sending the rest into a cluster that does not serve', async () => {
    const url = await gateway((n) => (n < 5 ? 200 : 503));
    const result = await warmUp(url, { requests: 200, model: 'm', concurrency: 1 });
    expect(result).toMatchObject({ ok: 5, failed: 1 });
  });

  it('gives up within its budget when nothing answers', async () => {
    const url = await gateway(() => 'hang');
    const result = await warmUp(url, { requests: 200, model: 'm', budgetMs: 300 });
    expect(result.ok).toBe(0);
    expect(result.failed).toBeGreaterThanOrEqual(1);
    expect(result.ms).toBeLessThan(5_000);
  });
});
