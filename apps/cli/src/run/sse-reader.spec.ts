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

async function dataOf(...chunks: string[]): Promise<string[]> {
  const got: string[] = [];
  for await (const data of sseData(streamOf(...chunks))) got.push(data);
  return got;
}

describe('sseData', () => {
  it('yields each event’s data, whole, however the bytes are split', async () => {
    expect(await dataOf('data: {"a"', ':1}\n\nda', 'ta: {"b":2}\n\n: comment\n\ndata: [DONE]\n\n')).toEqual(['{"a":1}', '{"b":2}', '[DONE]']);
  });

  it('reads CRLF line ends, even with the CR and LF in different chunks', async () => {
    expect(await dataOf('data: {"a":1}\r\n\r', '\ndata: [DONE]\r', '\n\r\n')).toEqual(['{"a":1}', '[DONE]']);
  });

  it('reads lone CR line ends', async () => {
    expect(await dataOf('data: one\r\rdata: two\r\r')).toEqual(['one', 'two']);
  });

  it('joins the data lines of one event with a newline', async () => {
    expect(await dataOf('data: {"text":\ndata: "two lines"}\n\n')).toEqual(['{"text":\n"two lines"}']);
  });

  it('skips comments, keep-alives and events without data, and keeps the fields it does not read out of the data', async () => {
    expect(await dataOf(': keep-alive\n\nretry: 1000\n\nid: 7\nevent: message\ndata: x\n\n:another\ndata: [DONE]\n\n')).toEqual(['x', '[DONE]']);
  });

  it('takes one space after the colon as the separator and keeps the rest', async () => {
    expect(await dataOf('data:no-space\n\ndata:  two spaces\n\n')).toEqual(['no-space', ' two spaces']);
  });

  it('ignores a leading byte-order mark and leaves an event the stream never finished undispatched', async () => {
    expect(await dataOf('\uFEFFdata: first\n\ndata: cut off')).toEqual(['first']);
  });

  it('yields [DONE] as data, for the caller to stop on', async () => {
    expect(await dataOf('data: [DONE]\n\n')).toEqual(['[DONE]']);
  });
});
