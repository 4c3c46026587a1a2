import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import {
  ConsoleLogger,
  Global,
  Injectable,
  Module,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type INestApplication,
  type OnApplicationShutdown,
  type Provider,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { epochMicros } from '@sluice/bus';
import { inboxPrefixOf, subjectPatterns, subjects, type BusIdentity, type PresenceEvent, type ServiceName } from '@sluice/contracts';
import { ConfigError, type NatsCredentials, type NatsTlsFiles } from '@sluice/config';
import { createMetricsRegistry, startTracing } from '@sluice/telemetry';
import { Bus, isTlsError } from '@sluice/bus';
import { BusTransport, type InboundRoute } from './bus.transport.js';
import { listenWithAcceptors } from './http-listen.js';
import { reclaimWhenIdle } from './idle-reclaim.js';
import { OpsController } from './ops.controller.js';
import { SERVICE_CONTEXT, type ServiceContext } from './service-context.js';

export interface ServiceSpec<C extends object> {
  /** `service.name`, e.g. `sluice-router`. */
  readonly name: string;
  readonly config: C;
  readonly natsUrl: string;
  /** The bus identity to connect as, and its password (docs/security.md); anonymous when absent. */
  readonly natsAuth?: { readonly identity: BusIdentity; readonly credentials: NatsCredentials };
  /** TLS to NATS (`nats.tls`), its files already found readable; absent: plain TCP. */
  readonly natsTls?: NatsTlsFiles;
  readonly ackTimeoutMs: number;
  /** A handoff is taken only while this much of its sender's wait is left (`nats.ackMarginMs`). */
  readonly ackMarginMs?: number;
  readonly http: { readonly host: string; readonly port: number };
  /** The service's own module: controllers and providers; it can inject SERVICE_CONTEXT. */
  readonly module: Type<unknown> | DynamicModule;
  readonly routes?: ReadonlyMap<string, InboundRoute>;
  /** Extra readiness check (null = ready). */
  readonly readiness?: () => string | null;
  /** A fixed instance id (else random); the gateway uses it in inbox subjects. */
  readonly instanceId?: string;
  /** Say this process is alive on its presence subject every `intervalMs` (request holders do). */
  readonly presence?: { readonly service: ServiceName; readonly intervalMs: number };
}

export interface RunningService<C extends object> {
  readonly app: INestApplication;
  readonly context: ServiceContext<C>;
  readonly url: string;
}

/**
 * The one bootstrap every service follows: tracing first (so spans from start-up are kept), then
 * the bus, then the Nest app with the ops endpoints and the bus transport, shutdown hooks that
 * drain NATS and flush telemetry. Config is validated by the caller before this runs.
 */
/**
 * The listening socket's accept queue. Node's default (511) overflowed at the gateway when a
 * client offered twice the cluster's capacity with a connection per outstanding request
 * (tools/bench/overload.mjs: up to 490 waiting in one-second samples); a SYN that finds the queue
 * full is dropped and retried by the client after its 1 s retransmission timeout, which is how a
 * `/healthz` probe took 1.4 s while the event loop never lagged more than 125 ms. The kernel caps
 * it at net.core.somaxconn (4096 on current kernels).
 */
export const LISTEN_BACKLOG = 4096;

/** Listening sockets per service, so a burst of new connections is accepted as fast as it comes (`listenWithAcceptors`). */
export const ACCEPTORS = 32;

/**
 * The process's bus connection. NATS refusing its credentials is a start-up error like a bad config
 * value: the process says which identity and which keys, and exits 2 (its supervisor stops trying).
 */
async function connectBus<C extends object>(spec: ServiceSpec<C>, instanceId: string, logger: ConsoleLogger): Promise<Bus> {
  const auth = spec.natsAuth;
  // The waiting connect below retries a failed TLS handshake for ever: ask once first.
  const tlsProblem = await Bus.tlsProblem({ url: spec.natsUrl, ...(auth ? { credentials: auth.credentials } : {}), ...(spec.natsTls ? { tls: spec.natsTls } : {}) });
  if (tlsProblem) tlsRefused(spec, tlsProblem);
  try {
    return await Bus.connect({
      url: spec.natsUrl,
      name: instanceId,
      ackTimeoutMs: spec.ackTimeoutMs,
      ...(spec.ackMarginMs !== undefined ? { ackMarginMs: spec.ackMarginMs } : {}),
      log: (line) => logger.warn(line),
      ...(auth ? { credentials: auth.credentials, inboxPrefix: inboxPrefixOf(auth.identity) } : {}),
      ...(spec.natsTls ? { tls: spec.natsTls } : {}),
    });
  } catch (error) {
    if (isTlsError(error)) tlsRefused(spec, error as Error);
    if (!isAuthorizationError(error)) throw error;
    const who = auth ? `as user "${auth.credentials.user}" (nats.user with nats.password or nats.passwordFile)` : 'without credentials: it requires a user (set nats.user and nats.passwordFile, as `sluice up` does for its own NATS)';
    process.stderr.write(`${spec.name}: the NATS server at ${spec.natsUrl} refused to connect ${who}: ${(error as Error).message}\n`);
    process.exit(ConfigError.EXIT_CODE);
  }
}

/** TLS with NATS failed (it wants TLS, does not offer it, or its certificate does not verify): a start-up error, exit 2. */
function tlsRefused(spec: { name: string; natsUrl: string; natsTls?: NatsTlsFiles }, error: Error): never {
  const how = spec.natsTls ? `over TLS with the CA in ${spec.natsTls.caFile} (nats.tls.caFile)` : 'without TLS (if it requires TLS, set nats.tls.caFile to the CA that signed its certificate)';
  process.stderr.write(`${spec.name}: could not connect to the NATS server at ${spec.natsUrl} ${how}: ${error.message}\n`);
  process.exit(ConfigError.EXIT_CODE);
}

function isAuthorizationError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AuthorizationError' || /authorization violation/i.test(error.message));
}

export async function bootstrapService<C extends object>(spec: ServiceSpec<C>): Promise<RunningService<C>> {
  const instanceId = spec.instanceId ?? `${spec.name.replace(/^sluice-/, '')}-${randomBytes(3).toString('hex')}`;
  const telemetry = await startTracing(spec.name, instanceId);
  const logger = new ConsoleLogger(spec.name, { timestamp: true, logLevels: ['log', 'error', 'warn'], colors: Boolean(process.stdout.isTTY) });
  const bus = await connectBus(spec, instanceId, logger);
  let shuttingDown = false;
  const presence = spec.presence;
  const announce = (type: PresenceEvent['type']): void => {
    if (!presence) return;
    const event: PresenceEvent = { service: presence.service, processId: instanceId, type, atUs: epochMicros() };
    bus.publish(subjects.servicePresence(presence.service, instanceId), event);
  };
  const heartbeat = presence ? setInterval(() => announce('heartbeat'), presence.intervalMs) : undefined;
  heartbeat?.unref();
  const stopReclaiming = reclaimWhenIdle((line) => logger.log(line));
  const context: ServiceContext<C> = {
    name: spec.name,
    instanceId,
    config: spec.config,
    bus,
    tracer: telemetry.tracer,
    metrics: createMetricsRegistry(spec.name, instanceId),
    readiness: () => {
      if (shuttingDown) return 'shutting down';
      if (bus.connection.isClosed()) return 'NATS connection closed';
      if (!bus.isConnected) return 'NATS disconnected (reconnecting)';
      return spec.readiness?.() ?? null;
    },
  };

  const contextProvider: Provider = { provide: SERVICE_CONTEXT, useValue: context };
  // The transport is a provider too: a stage host registers its handlers on it at construction.
  const transport = spec.routes ? new BusTransport(bus, spec.routes, instanceId) : undefined;
  const transportProviders: Provider[] = transport ? [{ provide: BusTransport, useValue: transport }] : [];

  /**
   * Shutdown order: on the signal readiness goes false and the bus stops taking handoffs; Nest
   * then runs every module's destroy hooks (services finish or hand back what they hold); only
   * then is the bus drained (acks of its own handoffs awaited, pending frames sent), and the
   * last spans flushed.
   */
  @Injectable()
  class ShutdownHooks implements BeforeApplicationShutdown, OnApplicationShutdown {
    beforeApplicationShutdown(): void {
      shuttingDown = true;
    }
    async onApplicationShutdown(): Promise<void> {
      clearInterval(heartbeat);
      stopReclaiming();
      announce('down');
      await bus.drain().catch(() => undefined);
      await telemetry.shutdown().catch(() => undefined);
    }
  }

  /** Global, so every service module can inject SERVICE_CONTEXT (and the transport) without importing anything. */
  @Global()
  @Module({ providers: [contextProvider, ...transportProviders], exports: [contextProvider, ...transportProviders] })
  class ServiceContextModule {}

  @Module({ imports: [ServiceContextModule, spec.module], controllers: [OpsController], providers: [ShutdownHooks] })
  class RootModule {}

  // No body parser: the gateway reads bodies itself to answer bad JSON in OpenAI's error shape.
  const app = await NestFactory.create(RootModule, { logger, abortOnError: false, bodyParser: false });
  if (transport) app.connectMicroservice({ strategy: transport }, { inheritAppConfig: true });
  // Not ready from the moment the signal comes, before any module starts finishing its work.
  // It stops taking handoffs at once too: what it hands back while it stops must not come back here.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.prependOnceListener(signal, () => {
      shuttingDown = true;
      void bus.stopServing();
    });
  }
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  // Every module's init hook (a stage's start: its clocks, its start-up window) runs before the
  // first message can reach a handler; \`listen\` would run them only after the bus routes were live.
  await app.init();
  await app.startAllMicroservices();
  // The server has every subscription before the process says it is up: a peer that hears `up` (or
  // sees it ready) and sends at once on another connection would otherwise race the subscriptions,
  // and what it sent would be lost (under load the stage-host spec's presence event was).
  await bus.flush();
  // Subscribed to lifecycle events: ask the instances that are already up to announce themselves.
  if (spec.routes?.has(subjectPatterns.allWorkerLifecycle)) bus.publish(subjects.workerDiscover(), {});
  announce('up');
  const address = await listenWithAcceptors(app.getHttpServer() as Server, { port: spec.http.port, host: spec.http.host, backlog: LISTEN_BACKLOG, acceptors: ACCEPTORS });
  const url = `http://${spec.http.host}:${address.port}`;
  logger.log(`ready on ${url} (instance ${instanceId})`);
  return { app, context, url };
}
