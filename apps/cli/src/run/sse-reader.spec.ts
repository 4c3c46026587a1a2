import { describe, expect, it } from 'vitest';
import { sseData } from './sse-reader.js';

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('sseData', () => {
  it('yields each event’s data, whole, however the bytes are split', async () => {
    const got: string[] = [];
    for await (const data of sseData(streamOf('data: {"a"', ':1}\n\nda', 'ta: {"b":2}\n\n: comment\n\ndata: [DONE]\n\n'))) got.push(data);
    expect(got).toEqual(['{"a":1}', '{"b":2}', '[DONE]']);
  });
});
