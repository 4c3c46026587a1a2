import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '@sluice/contracts';

export class BodyError extends Error {
  override readonly name: string = 'BodyError';
}

/** The body is larger than the limit (declared so, or found so while reading): 413. */
export class BodyTooLargeError extends BodyError {
  override readonly name = 'BodyTooLargeError';
}

/** The body is not declared as JSON (`Content-Type` other than `application/json`): 400 on the inference routes, 415 on admin routes. */
export class UnsupportedMediaTypeError extends BodyError {
  override readonly name = 'UnsupportedMediaTypeError';
}

const MALFORMED_BODY = Symbol('sluice.malformedBody');

/**
 * Marks a request whose body the HTTP parser found broken (bad chunked encoding), with what to
 * tell the client, so that its body read fails with a 400 rather than as a client gone. False if it
 * was marked already (the parser reports every later byte again).
 */
export function markMalformedBody(req: IncomingMessage, message: string): boolean {
  const marked = req as IncomingMessage & { [MALFORMED_BODY]?: string };
  if (marked[MALFORMED_BODY] !== undefined) return false;
  marked[MALFORMED_BODY] = message;
  return true;
}

function malformedBodyOf(req: IncomingMessage): string | undefined {
  return (req as IncomingMessage & { [MALFORMED_BODY]?: string })[MALFORMED_BODY];
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
 * After a body is found too large, what is left of it is still read (and dropped) up to this many
 * bytes or this long, before the 413 goes out and the connection closes. A client that writes its
 * whole body before it reads (Python's urllib, curl without `Expect`) would otherwise be writing
 * into a socket the gateway closed with unread bytes in it, which the kernel answers with a reset:
 * the client sees a broken pipe and never the 413. Past either bound the gateway stops reading
 * and closes anyway: reading a gigabyte to be polite is what the limit is there to prevent.
 */
export const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;
export const DRAIN_LIMIT_MS = 2_000;

/** `application/json`, any parameters (`; charset=utf-8`) and case. */
export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * Reads a JSON body, bounded in size and in time, so a bad body gets an OpenAI-style 400 rather
 * than a framework's, one not declared as JSON an UnsupportedMediaTypeError before any of it is
 * read (vLLM's `validate_json_request` refuses any media type but `application/json` the same
 * way), one too large 413 (drained first, within bounds: DRAIN_LIMIT_BYTES), a stalled one 408, and
 * one whose client vanished a ClientGoneError: the caller counts an outcome for each (nothing that
 * entered is left uncounted).
 */
export async function readJsonBody(req: IncomingMessage, { limitBytes, limitName, timeoutMs }: BodyLimits): Promise<JsonBody> {
  const contentType = req.headers['content-type'];
  if (!isJsonContentType(contentType)) {
    const sent = contentType === undefined ? 'no Content-Type' : `Content-Type "${contentType.slice(0, 100)}"`;
    throw new UnsupportedMediaTypeError(`the request has ${sent}: send the JSON body with Content-Type: application/json`);
  }
  const tooLarge = () => new BodyTooLargeError(`request body is larger than ${limitBytes} bytes (${limitName})`);
  const declared = Number(req.headers['content-length']);
  if (declared > limitBytes) {
    // A declared body beyond what would be drained is refused unread: the client will see the
    // connection close whatever the gateway does, so it is not kept busy for nothing.
    if (declared <= limitBytes + DRAIN_LIMIT_BYTES) await discardRest(req, DRAIN_LIMIT_BYTES, DRAIN_LIMIT_MS);
    throw tooLarge();
  }
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
      else finish(() => void discardRest(req, DRAIN_LIMIT_BYTES, DRAIN_LIMIT_MS).then(() => reject(tooLarge())));
    };
    const onEnd = () => finish(() => parseBody(Buffer.concat(chunks).toString('utf8'), size, resolve, reject));
    const onGone = () => {
      const malformed = malformedBodyOf(req);
      finish(() => reject(malformed === undefined ? new ClientGoneError('the client went away before its request body was whole') : new BodyError(malformed)));
    };
    // 'close' before 'end': the connection ended mid-body.
    const onClose = () => {
      if (!req.complete) onGone();
    };
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => finish(() => (req.pause(), reject(new BodyTimeoutError(`request body not received whole within ${timeoutMs} ms (gateway.bodyTimeoutMs)`)))), timeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onClose);
  });
}

/**
 * Reads and drops the rest of a body, until it ends, the client goes, `maxBytes` more have come
 * or `maxMs` has passed; whatever is still unread then is left to the connection's close.
 */
export function discardRest(req: IncomingMessage, maxBytes: number, maxMs: number): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('close', done).off('error', done);
      req.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read >= maxBytes) done();
    };
    const timer = setTimeout(done, maxMs);
    req.on('data', onData).on('end', done).on('close', done).on('error', done);
    req.resume();
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
