import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { blockIds, errorTypeOf, httpHeaders, httpStatusOf, micros, type InferenceRequest, type Micros, type OutcomeReason } from '@sluice/contracts';
import { BodyError, BodyTimeoutError, BodyTooLargeError, Exchange, apiError, parseInferenceBody, readJsonBody, sendJson, type ApiKind, type ServedModel } from '@sluice/openai';
import { chatDefaultMaxTokens, type InstanceCore } from '@sluice/stages';
import { context } from '@sluice/telemetry';
import { liveHeld, type LiveHeld } from './live-held.js';
import type { DirectReplies } from './direct-replies.js';
import { instanceMetricsPage } from './instance-metrics-page.js';

/** What an instance's HTTP face needs from its worker process. */
export interface InstanceHttpDeps {
  readonly instance: InstanceCore<LiveHeld>;
  /** Where the instance is in its life (autoscaling): only a ready one serves; undefined when it is ready. */
  readonly notReady: () => 'parked' | 'starting' | 'draining' | undefined;
  /** The model the instance serves, and the context it enforces (vLLM's max_model_len). */
  readonly model: ServedModel;
  readonly direct: DirectReplies;
  /** The engine's clock (the instance's time). */
  readonly nowUs: () => Micros;
  /** The wire's clock (epoch µs): the request's arrival as a gateway would stamp it. */
  readonly epochUs: () => Micros;
  /** The process's Prometheus page. */
  readonly metricsText: () => Promise<string>;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
}

/** The routes vLLM's OpenAI server answers that an instance serves, by method and path. */
const INFERENCE: ReadonlyMap<string, ApiKind> = new Map([
  ['/v1/completions', 'completion'],
  ['/v1/chat/completions', 'chat'],
]);

const NOT_READY = { parked: 'scaled down', starting: 'loading its model', draining: 'draining' } as const;

/**
 * One worker instance as a vLLM OpenAI server on a port of its own: `POST /v1/completions` and
 * `/v1/chat/completions` (streamed or not), `GET /v1/models` and `/v1/models/{id}`, `/health`
 * and `/metrics` (the instance's own `vllm:*` series). A request here goes straight into the
 * instance's engine, the one its bus requests run in, with no admission, flow control or routing:
 * the bare GPU a client would reach on a vLLM pod. Parsing, answers and errors are libs/openai's,
 * the gateway's own.
 */
export class InstanceHttpServer {
  private readonly server: Server;

  constructor(private readonly deps: InstanceHttpDeps) {
    this.server = createServer((req, res) => {
      this.route(req, res).catch((error: unknown) => {
        if (!res.headersSent && !res.destroyed) sendJson(res, 500, apiError(`internal error in the worker: ${(error as Error).message}`, 'server_error', null, 'internal'));
        else res.destroy();
      });
    });
  }

  /** Listens on `port` (0: one the system picks); resolves with the port taken. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  /** Takes no new connections; open answers go on (the instance drains them). */
  close(): void {
    this.server.close();
    this.server.closeIdleConnections();
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?', 1)[0]!.replace(/(.)\/$/, '$1');
    const kind = INFERENCE.get(path);
    // An instance not ready answers as a vLLM pod that is loading its model or shutting down: its
    // health check and its inference routes fail with 503, so a client or a probe goes elsewhere.
    const notReady = this.deps.notReady();
    if (notReady !== undefined && (path === '/health' || (kind !== undefined && req.method === 'POST'))) {
      const message = `instance ${this.deps.instance.instanceId} is not ready (${NOT_READY[notReady]})`;
      return sendJson(res, 503, apiError(message, 'service_unavailable', null, 503));
    }
    if (kind !== undefined && req.method === 'POST') return this.serve(kind, req, res);
    if (req.method !== 'GET') return sendJson(res, kind === undefined ? 404 : 405, apiError(`${req.method} ${path} is not served`, 'invalid_request_error', null, kind === undefined ? 404 : 405));
    if (path === '/health') {
      res.writeHead(200).end();
      return;
    }
    if (path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(instanceMetricsPage(await this.deps.metricsText(), this.deps.instance.rank));
      return;
    }
    const created = Math.floor(Date.now() / 1000);
    const { name } = this.deps.model;
    const model = { id: name, object: 'model', created, owned_by: 'sluice', root: name, parent: null, max_model_len: this.deps.model.maxModelLen };
    if (path === '/v1/models') return sendJson(res, 200, { object: 'list', data: [model] });
    if (path.startsWith('/v1/models/')) {
      const id = decodeURIComponent(path.slice('/v1/models/'.length));
      if (id === name) return sendJson(res, 200, model);
      return sendJson(res, 404, apiError(`The model '${id}' does not exist`, 'invalid_request_error', 'model', 'model_not_found'));
    }
    sendJson(res, 404, apiError(`GET ${path} is not served`, 'invalid_request_error', null, 404));
  }

  private async serve(kind: ApiKind, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refuse = (reason: OutcomeReason, message: string, param: string | null = null) => {
      if (!res.destroyed) sendJson(res, httpStatusOf(reason), apiError(message, errorTypeOf(reason), param, reason));
    };
    let body: { value: unknown; bytes: number };
    try {
      body = await readJsonBody(req, { limitBytes: this.deps.maxBodyBytes, limitName: 'gateway.limits.maxBodyBytes', timeoutMs: this.deps.bodyTimeoutMs });
    } catch (error) {
      if (error instanceof BodyTooLargeError) return refuse('body_too_large', error.message);
      if (error instanceof BodyTimeoutError) return refuse('body_timeout', error.message);
      if (error instanceof BodyError) return refuse('invalid_request', error.message);
      return void res.destroy(); // the client went away mid-body
    }
    const { model, instance, direct } = this.deps;
    const parsed = parseInferenceBody(kind, body.value, [model]);
    if (!parsed.ok) return refuse('invalid_request', parsed.message, parsed.param);
    // No length asked for: vLLM's rule, the context left (a vLLM server has no cap of its own by default).
    const maxTokens = parsed.maxTokens ?? chatDefaultMaxTokens(parsed.tokenIds.length, model.maxModelLen, 0);
    const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID()}`;
    const gatewayId = `http-${instance.instanceId}`;
    const request: InferenceRequest = {
      id,
      model: model.name,
      inputTokens: parsed.tokenIds.length,
      blockHashes: blockIds(parsed.tokenIds),
      maxTokens,
      bodyBytes: body.bytes,
      sloClass: 'standard',
      priority: 0,
      fairnessId: 'default',
      arrivalUs: this.deps.epochUs(),
      deadlineUs: micros(Number.POSITIVE_INFINITY),
      attempt: 0,
      gatewayId,
      replyTo: `direct.${gatewayId}.${id}`,
      timings: {},
    };
    const exchange = new Exchange({
      res,
      kind,
      id,
      model: model.name,
      promptTokens: parsed.tokenIds.length,
      maxTokens,
      stream: parsed.stream,
      includeUsage: parsed.includeUsage,
      reportTimings: req.headers[httpHeaders.reportTimings] === '1',
      errorBody: 'openai',
      onSettle: () => direct.close(id),
    });
    direct.open(id, exchange);
    // The client went away: the engine lets the request go, as vLLM aborts a request whose client left.
    res.on('close', () => {
      if (exchange.isSettled) return;
      exchange.abandon();
      instance.cancel(id, 'client_disconnected', this.deps.nowUs());
    });
    instance.accept(liveHeld(request, context.active()), this.deps.nowUs());
  }
}
