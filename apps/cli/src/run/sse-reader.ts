import { EventSourceParserStream } from 'eventsource-parser/stream';

/**
 * The `data` of each server-sent event of a body, as it arrives (OpenAI streams one JSON object per
 * event, then `[DONE]`). Parsing is eventsource-parser's, which follows the WHATWG rules a
 * hand-rolled split on `\n\n` gets wrong: CRLF and lone-CR line ends (some proxies rewrite them),
 * multi-line `data:` fields joined by `\n`, comments (`: keep-alive`), a BOM, events cut anywhere
 * between chunks. Events without data (a bare `id:` or `retry:`) yield nothing.
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const events = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const event of events) {
    if (event.data !== '') yield event.data;
  }
}
