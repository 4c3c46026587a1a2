import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '@sluice/metrics';
import { absentFromTarget, targetBaseUrl, targetModel } from './target-endpoint.js';

describe('targetBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:8000', 'http://127.0.0.1:8000'],
    ['http://127.0.0.1:8000/', 'http://127.0.0.1:8000'],
    ['http://127.0.0.1:8000/v1', 'http://127.0.0.1:8000'],
    ['http://127.0.0.1:8000/v1/', 'http://127.0.0.1:8000'],
    ['https://llm.example.com/serving/v1', 'https://llm.example.com/serving'],
    ['http://[::1]:8000/v1', 'http://[::1]:8000'],
  ])('reads %s as the base %s', (text, url) => {
    expect(targetBaseUrl(text)).toEqual({ url });
  });

  it.each(['localhost:8000', 'ftp://host/v1', 'http://host:8000/v1?x=1', 'not a url'])('refuses %s with a reason', (text) => {
    expect(targetBaseUrl(text)).toEqual({ problem: expect.stringContaining(text) });
  });
});

describe('absentFromTarget', () => {
  const served = (timings?: RunRecord['timings']): RunRecord => ({ id: 'r0', fairnessId: 't', sloClass: 's', priority: 0, arrivalMs: 0, endMs: 1, outputTokens: 1, outcome: 'completed', status: 200, attempts: 1, ...(timings ? { timings } : {}) });

  it('names the stage timings when no answer carried them, and the engine counters with their reason', () => {
    const absent = absentFromTarget([served(), served()], 'a target’s engines are not known');
    expect(absent).toHaveLength(2);
    expect(absent[0]).toMatch(/^stage timings/);
    expect(absent[1]).toBe('engine counters: a target’s engines are not known');
  });

  it('leaves the stage timings out of the list when the answers did carry them (sluice’s gateway with its headers)', () => {
    expect(absentFromTarget([served({ admissionMs: 0.2 }), served()], undefined)).toEqual([]);
  });
});

describe('targetModel, against a real HTTP server’s /v1/models', () => {
  let server: Server;
  let base: string;
  // What /v1/models lists, per path prefix; the one under /auth wants a key.
  const LISTS: Record<string, string[]> = { '/one': ['Qwen/Qwen3-14B'], '/several': ['a', 'b'], '/with-config': ['a', 'qwen3-14b'], '/auth': ['keyed'] };
  beforeAll(async () => {
    server = createServer((req, res) => {
      const prefix = req.url!.replace(/\/v1\/models$/, '');
      const models = LISTS[prefix];
      if (!models || (prefix === '/auth' && req.headers.authorization !== 'Bearer k')) {
        res.writeHead(prefix === '/auth' ? 401 : 404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('takes --target-model as given, without asking', async () => {
    expect(await targetModel(`${base}/nowhere`, 'mine', 'qwen3-14b', undefined)).toEqual({ model: 'mine' });
  });

  it('takes the one model listed', async () => {
    expect(await targetModel(`${base}/one`, undefined, 'qwen3-14b', undefined)).toEqual({ model: 'Qwen/Qwen3-14B' });
  });

  it('takes the config’s model when it is among several', async () => {
    expect(await targetModel(`${base}/with-config`, undefined, 'qwen3-14b', undefined)).toEqual({ model: 'qwen3-14b' });
  });

  it('refuses several that do not include the config’s, naming them', async () => {
    expect(await targetModel(`${base}/several`, undefined, 'qwen3-14b', undefined)).toEqual({ problem: expect.stringContaining('lists a, b, not qwen3-14b') });
  });

  it('sends the key, and falls back to the config’s model where /v1/models does not answer', async () => {
    expect(await targetModel(`${base}/auth`, undefined, 'qwen3-14b', 'k')).toEqual({ model: 'keyed' });
    expect(await targetModel(`${base}/auth`, undefined, 'qwen3-14b', undefined)).toEqual({ model: 'qwen3-14b' });
  });
});
