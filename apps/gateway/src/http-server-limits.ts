import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import type { SluiceConfig } from '@sluice/config';
import { ConnectionsPerAddress, clientAddressOf } from './connections-per-address.js';
import { GATEWAY_METRICS, type GatewayMetrics } from './gateway.metrics.js';
import { apiError } from './http-io.js';

/** How long an idle client connection is kept open. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** A refused connection is closed this long after its answer, if the client has not closed it first. */
const REFUSED_LINGER_MS = 1_000;

type Listener = (this: Server, ...args: unknown[]) => void;

/**
 * The gateway's HTTP server before any request is read: timeouts, open connections per client
 * address, and answers to what is not HTTP at all, each in OpenAI's error shape and counted
 * (`sluice_gateway_connections_refused_total`). These connections carried no request, so they are
 * not in the request books (docs/security.md).
 */
@Injectable()
export class HttpServerLimits implements OnApplicationBootstrap {
  private readonly connections: ConnectionsPerAddress;

  constructor(
    private readonly http: HttpAdapterHost,
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
    @Inject(GATEWAY_METRICS) private readonly metrics: GatewayMetrics,
  ) {
    this.connections = new ConnectionsPerAddress(service.config.gateway.limits.maxConnectionsPerClient);
  }

  onApplicationBootstrap(): void {
    const server = this.http.httpAdapter.getHttpServer() as Server;
    const { headersTimeoutMs, bodyTimeoutMs } = this.service.config.gateway;
    // Node closes an idle keep-alive connection after 5 s; a client that sends on it just then
    // sees a reset it cannot tell from a failure. Clients and load balancers close theirs sooner
    // than 65 s (undici 4 s, AWS ALB 60 s), so they close first and the race goes away.
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // Counted from a request's first byte; a keep-alive connection waiting for its next request is
    // not timed by it (Node 18 and later), so it can be short: a slowloris holds a socket this long.
    server.headersTimeout = headersTimeoutMs;
    // Node's own 408 for a whole request: kept behind the body timeout, whose 408 is counted.
    server.requestTimeout = headersTimeoutMs + bodyTimeoutMs + 5_000;
    // Node checks both timeouts on this interval (default 30 s, which would let a stalled header
    // live 40 s). A createServer option, kept as a property that is read when the server starts
    // listening, which comes after this hook; @types/node does not declare the property.
    (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(1_000, Math.max(100, Math.floor(headersTimeoutMs / 4)));
    this.capConnectionsPerAddress(server);
    server.on('clientError', (error: Error & { code?: string }, socket: Socket) => this.onClientError(error, socket));
  }

  /**
   * Counted at the server's `connection` event, which every listening socket feeds
   * (libs/service/src/http-listen.ts emits it for connections its extra acceptors take). The HTTP
   * server's own listener runs only for connections within the cap.
   */
  private capConnectionsPerAddress(server: Server): void {
    const httpListeners = server.listeners('connection') as Listener[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      const address = clientAddressOf(socket.remoteAddress);
      if (address === undefined) {
        socket.destroy(); // gone before it was accepted
        return;
      }
      if (!this.connections.tryOpen(address)) {
        this.metrics.connectionsRefused.inc({ reason: 'too_many_connections' });
        const message = `${address} already has ${this.connections.cap} connections open to this gateway (gateway.limits.maxConnectionsPerClient): send more requests on each, or close some`;
        refuse(socket, 429, apiError(message, 'rate_limit_exceeded', null, 'too_many_connections'));
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
   * Node's answers to what it could not parse, and to headers that never came whole, as JSON. A
   * request already handed to a route owns its connection: the route sees it close and counts the
   * request (`client_disconnected`), so nothing is written here.
   */
  private onClientError(error: Error & { code?: string }, socket: Socket): void {
    const refusal = refusalOf(error.code);
    const inFlight = (socket as Socket & { _httpMessage?: unknown })._httpMessage != null;
    // Bytes after the error reach the failed parser again and raise another clientError; the
    // socket is no longer writable by then, so it gets one answer and is counted once.
    if (refusal === undefined || inFlight || !socket.writable) {
      socket.destroy();
      return;
    }
    this.metrics.connectionsRefused.inc({ reason: refusal.reason });
    socket.write(rawJsonResponse(refusal.status, apiError(`${refusal.message} (${error.code})`, refusal.status === 408 ? 'timeout' : 'invalid_request_error', null, refusal.reason)));
    socket.destroySoon();
  }
}

/** What Node's parser errors mean to a client; undefined for a connection that simply broke (a reset). */
function refusalOf(code: string | undefined): { reason: string; status: number; message: string } | undefined {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { reason: 'headers_timeout', status: 408, message: 'the request did not arrive whole in time (gateway.headersTimeoutMs)' };
  if (code === 'HPE_HEADER_OVERFLOW') return { reason: 'headers_too_large', status: 431, message: 'the request headers are larger than the gateway reads' };
  if (code?.startsWith('HPE_')) return { reason: 'malformed_http', status: 400, message: 'the request is not valid HTTP/1.1' };
  return undefined;
}

function rawJsonResponse(status: number, body: unknown): string {
  const text = JSON.stringify(body);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`;
}

/** Answers a connection no HTTP parser reads, then closes it. */
function refuse(socket: Socket, status: number, body: unknown): void {
  socket.on('error', () => undefined);
  socket.end(rawJsonResponse(status, body));
  // Whatever the client already sent is read and dropped: closing with unread bytes would send a
  // reset, and the client could lose the answer to it.
  socket.resume();
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
}
