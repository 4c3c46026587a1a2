import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '@sluice/contracts';

export class BodyError extends Error {
  override readonly name: string = 'BodyError';
}

/** The body is larger than the limit (declared so, or found so while reading): 413. */
export class BodyTooLargeError extends BodyError {
  override readonly name = 'BodyTooLargeError';
}

/** A parsed JSON body and its size on the wire (flow control's `maxBytes` counts it). */
export interface JsonBody {
  readonly value: unknown;
  readonly bytes: number;
}

/** The body did not arrive whole within the gateway's body timeout (a stalled or slowloris client): 408. */
export class BodyTimeoutError extends Error {
  override readonly name = 'BodyTimeoutError';
}

/** The client went away before its body was whole (aborted, broken chunked encoding, a short Content-Length). */
export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
}

export interface BodyLimits {
  /** Larger bodies are refused (BodyTooLargeError); `limitName` names the setting in the message. */
  readonly limitBytes: number;
  readonly limitName: string;
  /** The whole body must be in by then (none: no limit but Node's own request timeout). */
  readonly timeoutMs?: number;
}

/**
 * Reads a JSON body, bounded in size and in time, so a bad body gets an OpenAI-style 400 rather
 * than a framework's, one too large 413 (before any of it is read when its Content-Length says
 * so), a stalled one 408, and one whose client vanished a ClientGoneError: the caller counts an
 * outcome for each (nothing that entered is left uncounted).
 */
export function readJsonBody(req: IncomingMessage, { limitBytes, limitName, timeoutMs }: BodyLimits): Promise<JsonBody> {
  const tooLarge = () => new BodyTooLargeError(`request body is larger than ${limitBytes} bytes (${limitName})`);
  if (Number(req.headers['content-length']) > limitBytes) return Promise.reject(tooLarge());
  return new Promise<JsonBody>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
      else finish(() => (req.pause(), reject(tooLarge())));
    };
    const onEnd = () => finish(() => parseBody(Buffer.concat(chunks).toString('utf8'), size, resolve, reject));
    const onGone = () => finish(() => reject(new ClientGoneError('the client went away before its request body was whole')));
    // 'close' before 'end': the connection ended mid-body.
    const onClose = () => {
      if (!req.complete) onGone();
    };
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => finish(() => (req.pause(), reject(new BodyTimeoutError(`request body not received whole within ${timeoutMs} ms (gateway.bodyTimeoutMs)`)))), timeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onClose);
  });
}

function parseBody(text: string, bytes: number, resolve: (body: JsonBody) => void, reject: (error: Error) => void): void {
  if (text.trim() === '') return reject(new BodyError('request body is empty: send a JSON object'));
  try {
    resolve({ value: JSON.parse(text) as unknown, bytes });
  } catch (error) {
    reject(new BodyError(`request body is not valid JSON: ${(error as Error).message}`));
  }
}

export function apiError(message: string, type: string, param: string | null = null, code: string | number | null = null): ApiError {
  return { error: { message, type, param, code } };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendSizedJson(res, status, body, headers);
}

/** Answers with a JSON body; returns the body's size in bytes (the Endpoint Picker's response size). */
export function sendSizedJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
  const text = JSON.stringify(body);
  const bytes = Buffer.byteLength(text);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes, ...headers });
  res.end(text);
  return bytes;
}

/** Starts a server-sent event stream (its events: `SseWriter`). */
export function startSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  // No flushHeaders(): the headers leave with the first event in one write, which saves a
  // round of TCP segments before the first token (measured: ~2 ms of client-side TTFT).
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
}
