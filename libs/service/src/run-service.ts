import type { DynamicModule, Type } from '@nestjs/common';
import { identityOfService, type ServiceName } from '@sluice/contracts';
import { ConfigError, ackMarginOf, loadConfigOrExit, natsCredentialsOf, natsTlsOf, type NatsCredentials, type NatsTlsFiles, type SluiceConfig } from '@sluice/config';
import { bootstrapService, type RunningService } from './service-bootstrap.js';
import type { InboundRoute } from './bus.transport.js';

export interface ServiceWiring {
  readonly http: { readonly host: string; readonly port: number };
  readonly module: Type<unknown> | DynamicModule;
  readonly routes?: ReadonlyMap<string, InboundRoute>;
  readonly instanceId?: string;
  /** Extra readiness check (null = ready): a worker whose instances still load their model. */
  readonly readiness?: () => string | null;
}

/** A service's whole main: config from file + env + flags (exit 2 when invalid), then bootstrap. */
/**
 * The config section whose `heartbeatIntervalMs` paces each service's presence. The autoscaler
 * holds no request, so no gateway watches for its silence: it sends none.
 */
const PRESENCE_SECTIONS = { gateway: 'gateway', admission: 'admission', 'flow-controller': 'flowController', router: 'router', worker: 'worker', autoscaler: undefined } as const satisfies Record<
  ServiceName,
  keyof SluiceConfig | undefined
>;

export async function runService(name: `sluice-${ServiceName}`, wire: (config: SluiceConfig) => ServiceWiring): Promise<RunningService<SluiceConfig>> {
  const config = loadConfigOrExit();
  let wiring: ServiceWiring;
  let credentials: NatsCredentials | undefined;
  let tls: NatsTlsFiles | undefined;
  try {
    credentials = natsCredentialsOf(config.nats);
    tls = natsTlsOf(config.nats);
    wiring = wire(config);
  } catch (error) {
    // Wiring may load more config (a worker's latency profile): bad input there exits 2 as well.
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(ConfigError.EXIT_CODE);
  }
  return bootstrapService({
    name,
    config,
    natsUrl: config.nats.url ?? 'nats://127.0.0.1:4222',
    ...(credentials ? { natsAuth: { identity: identityOfService(serviceOf(name)), credentials } } : {}),
    ...(tls ? { natsTls: tls } : {}),
    ackTimeoutMs: config.nats.ackTimeoutMs,
    ackMarginMs: ackMarginOf(config.nats),
    ...presenceOf(config, serviceOf(name)),
    ...wiring,
  });
}

function presenceOf(config: SluiceConfig, service: ServiceName): { presence?: { service: ServiceName; intervalMs: number } } {
  const section = PRESENCE_SECTIONS[service];
  return section === undefined ? {} : { presence: { service, intervalMs: config[section].heartbeatIntervalMs } };
}

function serviceOf(name: `sluice-${ServiceName}`): ServiceName {
  return name.slice('sluice-'.length) as ServiceName;
}
