import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import type { SluiceConfig } from '@sluice/config';
import { ConnectionsPerAddress, clientAddressOf } from './connections-per-address.js';
import { GATEWAY_METRICS, type GatewayMetrics } from './gateway.metrics.js';
import { connectionCapOf, softOpenFileLimit } from './http-connection-cap.js';
import { apiError, markMalformedBody, sendJson } from '@sluice/openai';
import { RefusalLog } from './http-refusal-log.js';

/** A refused connection is closed this long after its answer, if the client has not closed it first. */
const REFUSED_LINGER_MS = 1_000;

/**
 * Refused connections waiting out their linger at once, at most; past it a refusal closes at once
 * without an answer. Each holds a file descriptor, and a flood of connections that never close
 * must not spend the reserve the connection cap keeps (http-connection-cap.ts).
 */
const MAX_LINGERING = 128;

/**
 * At the global cap, idle keep-alive connections are closed at most this often: closing them walks
 * every open connection, which a flood of refusals would otherwise do thousands of times a second.
 */
const RECLAIM_IDLE_EVERY_MS = 1_000;

type Listener = (this: Server, ...args: unknown[]) => void;
type InFlight = ServerResponse & { req?: IncomingMessage };

/**
 * The gateway's HTTP server before any request is read: timeouts, open connections in all and per
 * client address, answers to what is not HTTP at all and to expectations it cannot meet, each in
 * OpenAI's error shape, counted (`sluice_gateway_connections_refused_total{reason}`) and logged at
 * most once per reason every 10 s. These connections carried no request, so they are not in the
 * request books (docs/security.md).
 */
@Injectable()
export class HttpServerLimits implements OnApplicationBootstrap {
  private readonly connections: ConnectionsPerAddress;
  private readonly maxConnections: number;
  private readonly log = new RefusalLog((line) => new Logger('gateway').warn(line));
  private lingering = 0;
  private idleReclaimedAtMs = -Infinity;

  constructor(
    private readonly http: HttpAdapterHost,
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
    @Inject(GATEWAY_METRICS) private readonly metrics: GatewayMetrics,
  ) {
    const { limits } = service.config.gateway;
    this.connections = new ConnectionsPerAddress(limits.maxConnectionsPerClient);
    // main.ts checked the config against the open-file limit already (a ConfigError at start-up).
    this.maxConnections = connectionCapOf(limits, softOpenFileLimit());
  }

  onApplicationBootstrap(): void {
    const server = this.http.httpAdapter.getHttpServer() as Server;
    const { headersTimeoutMs, bodyTimeoutMs, keepAliveTimeoutMs } = this.service.config.gateway;
    // Node closes an idle keep-alive connection after 5 s; a client that sends on it just then
    // sees a reset it cannot tell from a failure. Load balancers close theirs sooner than the
    // default 65 s (AWS ALB 60 s), so they close first and the race goes away; what idle
    // connections cost is bounded by the caps below, not by closing them early.
    server.keepAliveTimeout = keepAliveTimeoutMs;
    // Counted from a request's first byte; a keep-alive connection waiting for its next request is
    // not timed by it (Node 18 and later), so it can be short: a slowloris holds a socket this long.
    server.headersTimeout = headersTimeoutMs;
    // Node's own 408 for a whole request: kept behind the body timeout, whose 408 is counted.
    server.requestTimeout = headersTimeoutMs + bodyTimeoutMs + 5_000;
    // Node checks both timeouts on this interval (default 30 s, which would let a stalled header
    // live 40 s). A createServer option, kept as a property that is read when the server starts
    // listening, which comes after this hook; @types/node does not declare the property.
    (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(1_000, Math.max(100, Math.floor(headersTimeoutMs / 4)));
    this.capConnections(server);
    const perClient = this.connections.cap === 0 ? 'no cap' : String(Math.min(this.connections.cap, this.maxConnections));
    new Logger('gateway').log(`connections: at most ${this.maxConnections} open in all (gateway.limits.maxConnections: ${String(this.service.config.gateway.limits.maxConnections)}, open-file limit ${softOpenFileLimit() ?? 'unknown'}), ${perClient} per client address; idle keep-alive ${keepAliveTimeoutMs} ms`);
    server.on('clientError', (error: Error & { code?: string }, socket: Socket) => this.onClientError(error, socket));
    // Without a listener Node answers an `Expect` it cannot meet with a bare 417, uncounted.
    server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => this.onUnmetExpectation(req, res));
  }

  /**
   * Counted at the server's `connection` event, which every listening socket feeds
   * (libs/service/src/http-listen.ts emits it for connections its extra acceptors take). The HTTP
   * server's own listener runs only for connections within both caps.
   */
  private capConnections(server: Server): void {
    const httpListeners = server.listeners('connection') as Listener[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      const address = clientAddressOf(socket.remoteAddress);
      if (address === undefined) {
        socket.destroy(); // gone before it was accepted
        return;
      }
      if (this.connections.total >= this.maxConnections) {
        // Idle keep-alive connections go first: whoever holds them has nothing in flight, and
        // the next connection finds room. This one is refused all the same (their closes come later).
        if (performance.now() - this.idleReclaimedAtMs >= RECLAIM_IDLE_EVERY_MS) {
          this.idleReclaimedAtMs = performance.now();
          server.closeIdleConnections();
        }
        const message = `the gateway has ${this.maxConnections} connections open, its cap (gateway.limits.maxConnections): retry shortly`;
        this.refuse(socket, 'connection_limit', address, 503, apiError(message, 'service_unavailable', null, 'connection_limit'), { 'retry-after': '1' });
        return;
      }
      if (!this.connections.tryOpen(address)) {
        const message = `${address} already has ${this.connections.cap} connections open to this gateway (gateway.limits.maxConnectionsPerClient): send more requests on each, or close some`;
        this.refuse(socket, 'too_many_connections', address, 429, apiError(message, 'rate_limit_exceeded', null, 'too_many_connections'));
        return;
      }
      this.metrics.connectionsOpen.inc();
      socket.once('close', () => {
        this.connections.close(address);
        this.metrics.connectionsOpen.dec();
      });
      for (const listener of httpListeners) listener.call(server, socket);
    });
  }

  /**
   * Node's answers to what it could not parse, and to headers that never came whole, as JSON.
   * A request whose body breaks while a route reads it (bad chunked encoding) is the route's to
   * answer: its body read fails with a 400 naming the fault (libs/openai http-io.ts), counted in the request
   * books, and the connection closes after it. A request already answered keeps its answer.
   */
  private onClientError(error: Error & { code?: string }, socket: Socket): void {
    const refusal = refusalOf(error.code);
    const inFlight = (socket as Socket & { _httpMessage?: InFlight | null })._httpMessage ?? undefined;
    if (inFlight !== undefined) return this.breakInFlight(inFlight, error, refusal, socket);
    // Bytes after the error reach the failed parser again and raise another clientError; the
    // socket is no longer writable by then, so it gets one answer and is counted once.
    if (refusal === undefined || !socket.writable) {
      socket.destroy();
      return;
    }
    this.count(refusal.reason, `${clientAddressOf(socket.remoteAddress) ?? 'a client'}: ${error.code}`);
    socket.write(rawJsonResponse(refusal.status, apiError(`${refusal.message} (${error.code})`, refusal.status === 408 ? 'timeout' : 'invalid_request_error', null, refusal.reason)));
    socket.destroySoon();
  }

  private breakInFlight(res: InFlight, error: Error & { code?: string }, refusal: ReturnType<typeof refusalOf>, socket: Socket): void {
    const req = res.req;
    if (refusal === undefined || req === undefined) {
      socket.destroy(); // a reset: nobody to answer
      return;
    }
    // No further request on this connection: its parser has failed.
    res.shouldKeepAlive = false;
    if (!req.complete && !res.headersSent && req.listenerCount('error') > 0 && markMalformedBody(req, `${refusal.message} (${error.code})`)) {
      req.emit('error', error);
    }
  }

  /** `Expect` other than `100-continue`: 417, as OpenAI's error, and the body (if any comes) left unread. */
  private onUnmetExpectation(req: IncomingMessage, res: ServerResponse): void {
    const expect = String(req.headers.expect ?? '').slice(0, 100);
    this.count('expectation_failed', `${clientAddressOf(req.socket.remoteAddress) ?? 'a client'} sent Expect "${expect}"`);
    const message = `the gateway cannot meet Expect "${expect}": send no Expect header, or Expect: 100-continue`;
    sendJson(res, 417, apiError(message, 'invalid_request_error', 'expect', 'expectation_failed'), { connection: 'close' });
  }

  private count(reason: string, detail: string): void {
    this.metrics.connectionsRefused.inc({ reason });
    this.log.refused(reason, detail);
  }

  /** Answers a connection no HTTP parser reads, then closes it; counted and logged. */
  private refuse(socket: Socket, reason: string, address: string, status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.count(reason, `${address} (${this.connections.total} open in all, ${this.lingering} being refused)`);
    socket.on('error', () => undefined);
    if (this.lingering >= MAX_LINGERING) {
      socket.destroy();
      return;
    }
    this.lingering++;
    socket.once('close', () => this.lingering--);
    socket.end(rawJsonResponse(status, body, headers));
    // Whatever the client already sent is read and dropped: closing with unread bytes would send a
    // reset, and the client could lose the answer to it.
    socket.resume();
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  }
}

/** What Node's parser errors mean to a client; undefined for a connection that simply broke (a reset). */
function refusalOf(code: string | undefined): { reason: string; status: number; message: string } | undefined {
  // The connection ended mid-message: a client gone, not bad HTTP (its request counts client_disconnected).
  if (code === 'HPE_INVALID_EOF_STATE') return undefined;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { reason: 'headers_timeout', status: 408, message: 'the request did not arrive whole in time (gateway.headersTimeoutMs)' };
  if (code === 'HPE_HEADER_OVERFLOW') return { reason: 'headers_too_large', status: 431, message: 'the request headers are larger than the gateway reads' };
  if (code === 'HPE_INVALID_CHUNK_SIZE' || code === 'HPE_STRICT' || code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return { reason: 'malformed_http', status: 400, message: "the request body's chunked encoding is broken: send chunk sizes in hex, each chunk followed by CRLF, and a last chunk of size 0" };
  if (code?.startsWith('HPE_')) return { reason: 'malformed_http', status: 400, message: 'the request is not valid HTTP/1.1' };
  return undefined;
}

function rawJsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): string {
  const text = JSON.stringify(body);
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${extra}connection: close\r\n\r\n${text}`;
}
