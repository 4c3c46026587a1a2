import { postCompletion, sseData } from './completions.js';

/** What a client saw of one streamed completion: its status, the text pieces in order, its usage. */
export interface StreamedAnswer {
  readonly status: number;
  readonly pieces: readonly string[];
  readonly completionTokens: number | undefined;
  /** The error code of an error answer or an in-stream error event. */
  readonly errorCode: string | undefined;
  /** The error's message (what a failing spec prints to say why). */
  readonly errorMessage?: string | undefined;
  /** When the first piece arrived (ms since the request was sent), undefined if none did. */
  readonly firstPieceMs: number | undefined;
}

interface Chunk {
  choices?: { text?: string }[];
  usage?: { completion_tokens: number };
  error?: { code?: string; message?: string };
}

/**
 * A real client of the gateway for the fault-tolerance specs: streams a completion with usage and
 * records every piece of text, so a spec can check that a stream that moved between instances
 * repeats or skips no token. `onFirstPiece` fires once the first token is in (the stream runs).
 */
export async function streamCompletion(gatewayUrl: string, body: Record<string, unknown>, onFirstPiece?: () => void): Promise<StreamedAnswer> {
  const started = Date.now();
  const res = await postCompletion(gatewayUrl, { ...body, stream: true, stream_options: { include_usage: true } });
  if (!res.ok || !res.body) {
    const error = (await res.json().catch(() => ({}))) as Chunk;
    return { status: res.status, pieces: [], completionTokens: undefined, errorCode: error.error?.code, errorMessage: error.error?.message, firstPieceMs: undefined };
  }
  const pieces: string[] = [];
  let completionTokens: number | undefined;
  let errorCode: string | undefined;
  let errorMessage: string | undefined;
  let firstPieceMs: number | undefined;
  let buffered = '';
  const decoder = new TextDecoder();
  for await (const bytes of res.body) {
    buffered += decoder.decode(bytes as Uint8Array, { stream: true });
    const end = buffered.lastIndexOf('\n\n');
    if (end < 0) continue;
    for (const data of sseData(buffered.slice(0, end + 2))) {
      if (data === '[DONE]') continue;
      const chunk = JSON.parse(data) as Chunk;
      if (chunk.error) {
        errorCode = chunk.error.code;
        errorMessage = chunk.error.message;
      }
      if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
      const text = chunk.choices?.[0]?.text;
      if (text) {
        if (firstPieceMs === undefined) {
          firstPieceMs = Date.now() - started;
          onFirstPiece?.();
        }
        pieces.push(text);
      }
    }
    buffered = buffered.slice(end + 2);
  }
  return { status: res.status, pieces, completionTokens, errorCode, errorMessage, firstPieceMs };
}
