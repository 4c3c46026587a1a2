import { isIP } from 'node:net';
import { z } from 'zod';
import { IDLE_SNAPSHOT_REFRESH_MS } from '@sluice/contracts';
import { ENGINE_COMPAT_MODES } from '@sluice/engine';
import {
  ADMISSION_POLICY_NAMES,
  ADMISSION_POLICY_PARAMS,
  AdmissionChainSchema,
  FlowControlConfigSchema,
  ROUTING_POLICY_NAMES,
  ROUTING_POLICY_PARAMS,
  UTILIZATION_DETECTOR,
  readsKvEvents,
} from '@sluice/policies';
import { TwinSectionSchema } from './twin-config.schema.js';
import { AutoscalerSchema, checkAutoscaler } from './autoscaler.schema.js';
import { KvTransferLinkSchema, RouterDisaggregationSchema, WorkerRolesSchema, checkDisaggregation } from './disaggregation.schema.js';
import { GatewayAdminSchema } from './gateway-admin.schema.js';
import { GatewayAuthSchema, checkApiKeyObjectives } from './gateway-auth.schema.js';
import { GatewayLimitsSchema } from './gateway-limits.schema.js';
import { MetricsSchema } from './metrics.schema.js';
import { TracingSchema } from './tracing.schema.js';

/**
 * The one config document (`sluice.yaml`). Every object is strict, so a misspelt key fails
 * start-up instead of being ignored; every field has a default, so an empty file is a valid
 * cluster. Precedence: defaults < file < SLUICE_* env < flags.
 */
const Port = z.number().int().min(0).max(65535);
const Host = z.string().min(1);
const Millis = z.number().int().positive();

const ModelSchema = z.strictObject({
  name: z.string().min(1),
  /** Longest prompt + output an instance of this model accepts (tokens). */
  maxModelLen: z.number().int().positive().default(40_960),
});

const ServiceBase = {
  host: Host.default('127.0.0.1'),
  /** How often the process says it is alive (presence, and a worker's instance heartbeats). */
  heartbeatIntervalMs: Millis.default(1_000),
  /**
   * On SIGTERM the process reports not-ready, stops taking work and has this long to finish or hand
   * back what it holds (docs/behaviour.md §6, graceful shutdown).
   */
  shutdownGraceMs: Millis.default(5_000),
};

/**
 * Processes `sluice up` starts for a stage (default 1): replicas behind the stage's queue group, or
 * several gateways, each on its own port (`port`, `port + 1`, …). What holds with N replicas is in
 * docs/scaling.md. Compose and Kubernetes scale containers and Deployments instead.
 */
const Replicas = z.number().int().min(1).max(16).default(1);


/** An address range: `10.0.0.0/8`, `::1/128`, or one address (`127.0.0.1`). */
const Cidr = z.string().refine(
  (value) => {
    const [address = '', prefix, ...rest] = value.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    if (prefix === undefined) return true;
    const bits = Number(prefix);
    return /^[0-9]+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
  },
  { message: 'must be an address range such as 10.0.0.0/8 or ::1/128' },
);

/**
 * Clients whose scheduling headers (tenant, objective, SLO class, TTFT objective) the gateway
 * believes: loopback and the private ranges, so a laptop, a compose network or a cluster's pod
 * network can set them, and a client on a public address cannot promote itself.
 */
export const DEFAULT_TRUSTED_HEADER_SOURCES = ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];

/** An InferenceObjective: a name clients send in `x-gateway-inference-objective`, and its priority. */
const InferenceObjectiveSchema = z.strictObject({
  name: z.string().min(1),
  /** Higher is served first; negative is sheddable. */
  priority: z.number().int(),
});

/**
 * `admission.policies.<policy>.<param>`: each admission policy's parameters, checked by the
 * policy's own schema, so `--admission.policies.token-bucket.capacity=-1` fails at start-up
 * naming that key. A policy switched to at run time starts from its entry here.
 */
const AdmissionPoliciesSchema = z.strictObject(
  Object.fromEntries(ADMISSION_POLICY_NAMES.map((name) => [name, ADMISSION_POLICY_PARAMS[name].prefault({})])),
);

/** `router.policies.<policy>.<param>`, checked by each routing policy's own schema. */
const RoutingPoliciesSchema = z.strictObject(
  Object.fromEntries(ROUTING_POLICY_NAMES.map((name) => [name, ROUTING_POLICY_PARAMS[name].prefault({})])),
);

const ConfigBody = z.strictObject({
  nats: z
    .strictObject({
      /** Empty: `sluice up` starts an embedded nats-server. Also read from NATS_URL. */
      url: z.string().optional(),
      /**
       * Nodes of the NATS cluster `sluice up` starts when nats.url is empty (1 = one server). Above 1
       * they route to each other and every service is given all their URLs: losing one loses no
       * request (docs/behaviour.md §6). Needs the nats-server binary.
       */
      clusterSize: z.number().int().min(1).max(7).default(1),
      /** How long a "request in" hop waits for the receiver's ack before ending the request. */
      ackTimeoutMs: Millis.default(2_000),
      /**
       * A receiver takes a handoff only while at least this much of its sender's ack wait is left
       * (the ack's way back, and the clock difference between hosts): a copy that reaches a frozen
       * or overloaded receiver later is not acked and not served, since its sender re-submits it.
       * Default: 250 ms, or a quarter of the ack timeout when that is less (`ackMarginOf`).
       */
      ackMarginMs: Millis.optional(),
      /**
       * The NATS `sluice up` starts requires credentials, one identity per service kind with only
       * the subjects it needs (docs/security.md); generated per run into .sluice/nats/. false: an
       * open bus, as every cluster once had (a testbed on a machine of your own, or tests that play a
       * hostile peer). A NATS of your own (nats.url) has whatever its own config says.
       */
      auth: z.boolean().default(true),
      /** The identity this process connects as (each service's own when `sluice up` starts it). */
      user: z.string().min(1).optional(),
      /** Its password, inline (prefer passwordFile: a file readable by its owner only, a mounted Secret). */
      password: z.string().min(1).optional(),
      /** A file holding its password (the first line; `sluice up` writes one per identity, mode 0600). */
      passwordFile: z.string().min(1).optional(),
      /**
       * `sluice up` starts its own NATS with TLS: a CA and a server certificate for 127.0.0.1 made
       * per run with openssl (in .sluice/nats-tls-…, removed on stop), and every process it starts
       * given `nats.tls.caFile`. One server (not with nats.clusterSize above 1), from the binary.
       */
      generateTls: z.boolean().default(false),
      /**
       * TLS to a NATS that requires it (docs/security.md, "TLS"): the CA file that signed the
       * server's certificate (PEM), and for mutual TLS this process's certificate and key. Absent:
       * plain TCP, as `sluice up`'s own NATS on loopback is.
       */
      tls: z
        .strictObject({ caFile: z.string().min(1), certFile: z.string().min(1).optional(), keyFile: z.string().min(1).optional() })
        .refine((tls) => (tls.certFile === undefined) === (tls.keyFile === undefined), { message: 'give nats.tls.certFile and nats.tls.keyFile together (mutual TLS), or neither', path: ['certFile'] })
        .optional(),
    })
    .superRefine((nats, ctx) => {
      if (nats.password !== undefined && nats.passwordFile !== undefined) ctx.addIssue({ code: 'custom', path: ['passwordFile'], message: 'give nats.password or nats.passwordFile, not both' });
      if (nats.user !== undefined && nats.password === undefined && nats.passwordFile === undefined) ctx.addIssue({ code: 'custom', path: ['user'], message: 'needs nats.password or nats.passwordFile' });
      if (nats.ackMarginMs !== undefined && nats.ackMarginMs * 2 > nats.ackTimeoutMs) ctx.addIssue({ code: 'custom', path: ['ackMarginMs'], message: `${nats.ackMarginMs} ms is more than half of nats.ackTimeoutMs (${nats.ackTimeoutMs} ms): receivers would refuse handoffs that wait only a little; lower it or raise the ack timeout` });
      if (nats.user === undefined && (nats.password !== undefined || nats.passwordFile !== undefined)) ctx.addIssue({ code: 'custom', path: ['user'], message: 'is required with nats.password / nats.passwordFile' });
    })
    .prefault({}),
  models: z.array(ModelSchema).min(1).default([{ name: 'qwen3-14b', maxModelLen: 40_960 }]),
  /**
   * The pool the workers form, as the Endpoint Picker names its InferencePool: the `inference_pool`
   * label of flow control's metrics and the `name` label of the pool metrics (docs/metrics.md).
   */
  inferencePool: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a Kubernetes object name: lower-case letters, digits and -, at most 63')
    .default('sluice'),
  /**
   * An EndpointPickerConfig YAML (the Gateway API Inference Extension's) read into this config
   * (docs/endpoint-picker-config.md); also `--epp-config FILE`. Relative to the working directory.
   */
  eppConfig: z.string().min(1).optional(),
  /** A YAML of InferencePool and InferenceObjective objects read into inferencePool, worker.port and inferenceObjectives; also `--inference-objectives FILE`. */
  inferenceObjectivesFile: z.string().min(1).optional(),
  gateway: z
    .strictObject({
      ...ServiceBase,
      port: Port.default(8080),
      replicas: Replicas,
      /** A request with no terminal frame by then ends with 504. */
      requestTimeoutMs: Millis.default(60_000),
      /** A request body not received whole by then gets 408 (a stalled or slowloris client). */
      bodyTimeoutMs: Millis.default(30_000),
      /**
       * A request's headers not received whole this long after its first byte: 408 and the
       * connection closed (Node's headersTimeout; an idle keep-alive connection is not timed).
       */
      headersTimeoutMs: Millis.default(10_000),
      /**
       * An idle keep-alive connection is closed after this long. Longer than the idle timeout of
       * the load balancers in front of gateways (AWS ALB 60 s), so they close first and never send
       * on a connection the gateway is closing; the connection caps bound what idle ones cost.
       */
      keepAliveTimeoutMs: Millis.pipe(z.number().min(1_000, 'must be at least 1000 (1 s)').max(600_000, 'must be at most 600000 (10 min)')).default(65_000),
      /**
       * How many times one request may be re-submitted (its worker or stage lost, handed back);
       * 0 = never. When spent, the request ends as failed (worker_lost / stage_lost).
       */
      migrationLimit: z.number().int().nonnegative().max(100).default(3),
      /** A process holding a request silent for this long is lost: the gateway re-submits what it held. */
      heartbeatTimeoutMs: Millis.default(3_000),
      /** Address ranges whose scheduling headers are honoured; from anywhere else they are stripped. */
      trustedHeaderSources: z.array(Cidr).default(DEFAULT_TRUSTED_HEADER_SOURCES),
      /** API keys (docs/security.md); absent: none needed, and scheduling headers count as above. */
      auth: GatewayAuthSchema.optional(),
      /** What one request or client may cost: body size, tokens, stream time, connections. */
      limits: GatewayLimitsSchema.prefault({}),
      /** Which hosts and origins admin writes (`POST /busy_threshold`) may come through. */
      admin: GatewayAdminSchema.prefault({}),
      /**
       * The shape of error bodies: `openai` (default), `{"error": {message, type, param, code}}` on
       * every error; `dynamo`, Dynamo's bare `{message, type, code}` for `all_workers_busy`, byte for
       * byte, for clients written against Dynamo's frontend (same status and reason either way).
       */
      errorBody: z.enum(['openai', 'dynamo']).default('openai'),
    })
    .prefault({}),
  admission: z
    .strictObject({
      ...ServiceBase,
      port: Port.default(9101),
      replicas: Replicas,
      /**
       * The admission chain: one policy, or several checked in order, the first to refuse deciding
       * (`busy-threshold,token-bucket` or a YAML list). A chain of one is that policy alone.
       */
      policy: AdmissionChainSchema.default(['always-admit']),
      policies: AdmissionPoliciesSchema.prefault({}),
      /** An instance silent for this long leaves admission's view of the cluster. */
      heartbeatTimeoutMs: Millis.default(3_000),
    })
    .prefault({}),
  /**
   * Priorities by objective name. A request naming an objective not listed here gets priority 0;
   * a request naming none takes its SLO class's priority (x-sluice-slo-class, default standard).
   */
  inferenceObjectives: z
    .array(InferenceObjectiveSchema)
    .default([])
    .superRefine((objectives, ctx) => {
      const seen = new Set<string>();
      objectives.forEach((o, i) => {
        if (seen.has(o.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `objective "${o.name}" is listed twice` });
        seen.add(o.name);
      });
    }),
  flowController: z
    .strictObject({
      ...ServiceBase,
      port: Port.default(9102),
      replicas: Replicas,
      /**
       * false: no queuing, requests pass straight to the router, and while the pool is saturated
       * sheddable (negative priority) requests get 429 at once (the Endpoint Picker's legacy mode).
       */
      enabled: z.boolean().default(true),
      /** An instance silent for this long leaves the flow controller's view of the pool. */
      heartbeatTimeoutMs: Millis.default(3_000),
      /**
       * How often each flow controller publishes what it holds queued, by model and priority band,
       * for admission's predictions (docs/behaviour.md §2); 0 = never.
       */
      queueReportIntervalMs: z.number().int().nonnegative().default(50),
      ...FlowControlConfigSchema.shape,
    })
    .prefault({}),
  router: z
    .strictObject({
      ...ServiceBase,
      port: Port.default(9103),
      replicas: Replicas,
      policy: z.enum(ROUTING_POLICY_NAMES).default('round-robin'),
      /** Each policy's parameters, e.g. `weighted: { weights: "prefix-affinity:3,queue-depth:2,kv-utilization:2" }`. */
      policies: RoutingPoliciesSchema.prefault({}),
      /** An instance silent for this long is lost. */
      heartbeatTimeoutMs: Millis.default(3_000),
      /**
       * How often instance-reported signals (queue depth, batch size, KV utilization) are refreshed
       * for routing decisions; 0 = each instance's newest snapshot. In-flight counts and the prefix
       * index are always current (docs/behaviour.md §4, signal freshness).
       */
      snapshotRefreshIntervalMs: z.number().int().nonnegative().default(50),
      /**
       * The KV-event index (kept when the policy reads it: `precise-prefix-cache`): the workers'
       * events become visible to scorers once the index's view is this old, BLIS's cache-signal
       * delay; 0 = at once (docs/behaviour.md §4, precise prefix). Default 50. Refused with a policy
       * that reads no KV events: it would change nothing.
       */
      kvEventRefreshMs: z.number().int().nonnegative().optional(),
      /** Blocks the KV-event index remembers per instance, oldest stored dropped first beyond it (bounded memory). Default 10,000; refused as above. */
      kvEventIndexCapacity: z.number().int().positive().optional(),
      /**
       * Disaggregated prefill/decode (docs/behaviour.md §1): the router picks a decode instance,
       * then, when the decider says so, a prefill instance. Requires `worker.roles`.
       */
      disaggregation: RouterDisaggregationSchema.optional(),
      /** Candidates kept, with their scores and signals, on each decision's span (and each decision-trace line). */
      counterfactualK: z.number().int().nonnegative().default(3),
      /**
       * A file the router writes each routing decision to, one JSON line each (docs/behaviour.md §4,
       * "Decision trace"); `sluice simulate` writes the twin's there too. Relative to the router's
       * working directory (`sluice up`'s, which its services share). Off by default. Refused with
       * replicas > 1: each replica would truncate the others' file.
       */
      decisionTrace: z.string().min(1).optional(),
      /** Seed of the tie-breaking random source; default: derived from the router's instance id. */
      seed: z.number().int().nonnegative().optional(),
    })
    .superRefine((router, ctx) => {
      if (router.decisionTrace !== undefined && router.replicas > 1) {
        ctx.addIssue({ code: 'custom', path: ['decisionTrace'], message: `one router writes a decision trace; with router.replicas ${router.replicas} each replica would truncate the others' file` });
      }
      // The index exists only for a policy that reads the workers' KV events: its keys would change nothing otherwise.
      if (readsKvEvents(router.policy, (router.policies as Record<string, unknown>)[router.policy])) return;
      for (const key of ['kvEventRefreshMs', 'kvEventIndexCapacity'] as const) {
        if (router[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `takes effect only with a policy that reads the workers' KV events (weighted with a precise-prefix-cache weight, or kv-router); router.policy is ${router.policy}` });
      }
    })
    .prefault({}),
  worker: z
    .strictObject({
      ...ServiceBase,
      port: Port.default(9104),
      /** Worker processes `sluice up` starts, each hosting `instances` instances (compose scales containers instead). */
      processes: z.number().int().min(1).max(64).default(1),
      /** Instances hosted by one worker process (data-parallel ranks of one worker); with an autoscaler, the most it can run. */
      instances: z.number().int().min(1).max(256).default(4),
      /** Instances of each process in the cluster at start (the first ranks); the rest wait parked for the autoscaler. Default: all. */
      initialInstances: z.number().int().nonnegative().max(256).optional(),
      /** A new instance's modelled start-up (model load) in ms of model time; default: the profile's `modelLoadMs`. */
      modelLoadMs: z.number().int().nonnegative().max(3_600_000).optional(),
      /**
       * The process's own instances load their model too before they register and the process
       * reports ready: a worker pod that Kubernetes' HPA or KEDA created (infra/k8s autoscaling
       * overlays). Off: they are the cluster's starting size, ready at once.
       */
      loadModelAtStart: z.boolean().default(false),
      /** The model the instances serve (must be one of `models`). */
      model: z.string().min(1).default('qwen3-14b'),
      /** Latency profile by name (a YAML file in libs/engine/profiles or `profilesDir`); default: the model's name. */
      profile: z.string().min(1).optional(),
      /** Extra directory of profile YAML files, for profiles of your own. */
      profilesDir: z.string().min(1).optional(),
      /** Order of each instance's wait queue (docs/behaviour.md §1). */
      scheduler: z.enum(['fcfs', 'priority-fcfs', 'sjf']).default('fcfs'),
      maxRunning: z.number().int().min(1).default(256),
      maxBatchTokens: z.number().int().min(1).default(2048),
      /** KV capacity per instance in 16-token blocks; default: the profile's. */
      kvBlocks: z.number().int().positive().optional(),
      /** Modelled durations run this many times faster in real time (10 = ten times faster). */
      timeScale: z.number().positive().max(10_000).default(1),
      /** Load snapshot interval; 0 = publish on every change (each step and each arrival). */
      loadIntervalMs: z.number().int().nonnegative().default(50),
      /**
       * Which simulator the instances reproduce: `vllm` (default, vLLM's behaviour) or `blis`,
       * BLIS's blackbox commit (docs/behaviour.md §1, "BLIS parity mode"). In the worker's section
       * because the mode is first the engine's (preemption, final-token KV slot) and so every
       * worker gets it with the settings it already reads; the twin reads the same key for the
       * rest of the mode (live routing signals, Go math/rand tie-breaks, zero hops), so one switch
       * sets it all and a run cannot be half BLIS.
       */
      compat: z.enum(ENGINE_COMPAT_MODES).default('vllm'),
      /**
       * Fraction of KV block allocations whose residency (lifetime, idle time before eviction,
       * reuse gaps) an instance measures for `vllm:kv_block_*_seconds`, as vLLM's
       * `--kv-cache-metrics-sample` (default 0.01 there too); 0 = not measured.
       */
      kvCacheMetricsSample: z.number().min(0).max(1).default(0.01),
      /** Disaggregated prefill/decode: how many of each process's instances prefill and decode (docs/behaviour.md §1). Absent: all do both. */
      roles: WorkerRolesSchema.optional(),
      /** The link KV blocks cross from a prefill to a decode instance: `nixl` (default with roles), `tcp`, or `{ setupUs, perBlockUs, bandwidthBytesPerSecond }`. */
      kvTransfer: KvTransferLinkSchema.optional(),
      /**
       * Each instance also serves vLLM's HTTP API on a port of its own (`basePort` + rank; 0 = an
       * ephemeral port, logged): completions, chat, models, /health and its own /metrics, through
       * the same engine as its bus requests. No admission, flow control or routing: the bare GPU
       * (docs/architecture.md, "A worker's HTTP face").
       */
      http: z
        .strictObject({ enabled: z.boolean().default(false), basePort: Port.default(0) })
        .prefault({}),
    })
    .superRefine((worker, ctx) => {
      // Every process would take the same ports: all but the first would fail to listen.
      if (worker.http.enabled && worker.http.basePort !== 0 && worker.processes > 1) {
        ctx.addIssue({ code: 'custom', path: ['http', 'basePort'], message: `with worker.processes ${worker.processes} every process would take ports ${worker.http.basePort}…: use 0 (each instance an ephemeral port, logged) or one process` });
      }
      if (worker.http.enabled && worker.http.basePort !== 0 && worker.http.basePort + worker.instances - 1 > 65535) {
        ctx.addIssue({ code: 'custom', path: ['http', 'basePort'], message: `${worker.http.basePort} + ${worker.instances} instances runs past port 65535` });
      }
    })
    .prefault({}),
  /** Adds and removes worker instances from a metric (docs/autoscaling.md). */
  autoscaler: AutoscalerSchema,
  /** The discrete-event twin's own settings (`sluice simulate`): its hop latencies. */
  twin: TwinSectionSchema.prefault({}),
  /** How many tenants get series of their own on a metrics page (docs/metrics.md, "Bounded pages"). */
  metrics: MetricsSchema.prefault({}),
  /** Where the run report links traces (docs/telemetry.md, "From a report to its trace"). */
  tracing: TracingSchema.prefault({}),
});

export const ConfigSchema = ConfigBody.superRefine((config, ctx) => {
  checkHeartbeatTimeouts(config, ctx);
  checkDisaggregation(config, ctx);
  checkAutoscaler(config, ctx);
  checkApiKeyObjectives(config.gateway.auth, config.inferenceObjectives, ctx);
  // A staleness threshold at or below the snapshot interval marks healthy instances stale, and
  // the utilization detector would then hold every request until its TTL.
  const detector = config.flowController.saturationDetector;
  if (detector.type !== UTILIZATION_DETECTOR) return;
  const intervalMs = config.worker.loadIntervalMs > 0 ? config.worker.loadIntervalMs : IDLE_SNAPSHOT_REFRESH_MS;
  if (detector.parameters.metricsStalenessThreshold < 2 * intervalMs) {
    ctx.addIssue({
      code: 'custom',
      path: ['flowController', 'saturationDetector', 'parameters', 'metricsStalenessThreshold'],
      message: `${detector.parameters.metricsStalenessThreshold} ms is too short for snapshots every ${intervalMs} ms (worker.loadIntervalMs): use at least ${2 * intervalMs} ms`,
    });
  }
});

/**
 * A heartbeat timeout must cover at least two heartbeats of what it watches, or a healthy process
 * whose heartbeat is a little late is declared lost, and its requests migrate for nothing.
 */
function checkHeartbeatTimeouts(config: z.infer<typeof ConfigBody>, ctx: z.RefinementCtx): void {
  const slowest = Math.max(
    config.worker.heartbeatIntervalMs,
    config.admission.heartbeatIntervalMs,
    config.flowController.heartbeatIntervalMs,
    config.router.heartbeatIntervalMs,
  );
  const watchers = [
    ['admission', config.admission.heartbeatTimeoutMs, config.worker.heartbeatIntervalMs],
    ['flowController', config.flowController.heartbeatTimeoutMs, config.worker.heartbeatIntervalMs],
    ['router', config.router.heartbeatTimeoutMs, config.worker.heartbeatIntervalMs],
    ['gateway', config.gateway.heartbeatTimeoutMs, slowest],
  ] as const;
  for (const [section, timeoutMs, intervalMs] of watchers) {
    if (timeoutMs < 2 * intervalMs) {
      ctx.addIssue({
        code: 'custom',
        path: [section, 'heartbeatTimeoutMs'],
        message: `${timeoutMs} ms is shorter than two heartbeats (every ${intervalMs} ms): healthy processes would be declared lost; use at least ${2 * intervalMs} ms`,
      });
    }
  }
}

export type SluiceConfig = z.infer<typeof ConfigSchema>;
export type SluiceConfigInput = z.input<typeof ConfigSchema>;

/** The margin a receiver keeps before its sender's ack deadline (`nats.ackMarginMs`, or its default). */
export function ackMarginOf(nats: Pick<SluiceConfig['nats'], 'ackTimeoutMs' | 'ackMarginMs'>): number {
  return nats.ackMarginMs ?? Math.min(250, Math.floor(nats.ackTimeoutMs / 4));
}
