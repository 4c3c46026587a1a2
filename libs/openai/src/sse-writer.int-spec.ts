import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSse } from './http-io.js';
import { SseWriter } from './sse-writer.js';

/** The SSE writer on a real HTTP server and client: what one turn sends leaves in one write. */
let server: Server | undefined;

afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Serves one streamed answer with `script`, counting the response's writes; returns the body the client read. */
async function serveOnce(script: (sse: SseWriter) => void): Promise<{ body: string; writes: string[] }> {
  const writes: string[] = [];
  server = createServer((_req, res: ServerResponse) => {
    const write = res.write.bind(res) as (chunk: string) => boolean;
    res.write = ((chunk: string) => {
      writes.push(chunk);
      return write(chunk);
    }) as typeof res.write;
    startSse(res);
    script(new SseWriter(res));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/`);
  return { body: await res.text(), writes };
}

describe('SseWriter', () => {
  it('sends the events of one turn in one write, and a later turn’s in another', async () => {
    const { body, writes } = await serveOnce((sse) => {
      sse.send({ n: 1 });
      sse.send({ n: 2 });
      setTimeout(() => {
        sse.send({ n: 3 });
        setTimeout(() => {
          sse.send('[DONE]');
          sse.end();
        }, 10);
      }, 10);
    });
    expect(writes).toEqual(['data: {"n":1}\n\ndata: {"n":2}\n\n', 'data: {"n":3}\n\n']);
    expect(body).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\ndata: [DONE]\n\n');
  });

  it('ends with what is still queued in the same call, and writes nothing after the end', async () => {
    const { body, writes } = await serveOnce((sse) => {
      sse.send({ last: true });
      sse.send('[DONE]');
      sse.end();
    });
    expect(writes).toEqual([]);
    expect(body).toBe('data: {"last":true}\n\ndata: [DONE]\n\n');
  });
});
