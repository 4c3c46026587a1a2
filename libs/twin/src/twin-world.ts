import { seedOf, seededRandom } from '@sluice/collections';
import type { AutoscalerSettings, WorkerSettings } from '@sluice/stages';
import { ClientRecords, type RecordSink } from './client-records.js';
import { TwinGateway, type TwinGatewaySettings } from './gateway.js';
import type { HopLatencies } from './hops.js';
import { TwinNetwork } from './network.js';
import type { TwinObserver } from './observer.js';
import type { GatewayInbox, WorkerSignals } from './ports.js';
import { StageGroups, type StageGroupsConfig } from './stage-groups.js';
import { TwinAutoscaler } from './twin-autoscaler.js';
import { WorkerFleet, type TwinInstance } from './worker-fleet.js';
import { WorkerProcess } from './worker-process.js';

/** Everything a twin run is built from, settled before the run (twin.ts reads it off the config). */
export interface TwinWorldSettings {
  readonly hops: HopLatencies;
  /** How long a sender waits for an ack before it counts its handoff as lost (nats.ackTimeoutMs; chaos runs). */
  readonly ackTimeoutUs: number;
  /** Seed of the routing tie-breaks, the queue groups' picks and bus fault decisions. */
  readonly seed: number;
  readonly gateway: TwinGatewaySettings;
  readonly stages: StageGroupsConfig;
  /** One entry per worker process (`worker-0`, …). */
  readonly workers: readonly WorkerSettings[];
  /** A terminated worker process's grace period (chaos runs). */
  readonly shutdownGraceUs: number;
  readonly checkInvariants: boolean;
  readonly observer: TwinObserver | undefined;
  /** The autoscaler's settings, when `autoscaler.enabled`; absent, no autoscaler runs. */
  readonly autoscaler?: AutoscalerSettings | undefined;
}

/** One run's parts, each wired to the others at construction. */
export interface TwinWorld {
  readonly records: ClientRecords;
  readonly network: TwinNetwork;
  readonly workers: WorkerFleet;
  readonly stages: StageGroups;
  readonly gateway: TwinGateway;
  readonly autoscaler: TwinAutoscaler | undefined;
}

/**
 * Puts one run of the twin together: the network, the worker processes, the stage replicas and the
 * gateway, each given at construction the ports it sends on. Requests go down the pipeline to parts
 * built before their senders; answers (the gateway's inbox) and worker signals go back up to parts
 * built after theirs, so those two ports are bound here to parts of this function, which exist by
 * the time anything is sent: nothing is assigned after construction, and no part reaches through
 * another. No stage rule lives in the twin: only when things arrive. With `sink`, records go to
 * it as they settle and `requests` is not used (a streamed run counts its requests as they come).
 */
export function buildWorld(settings: TwinWorldSettings, requests: number, sink?: RecordSink): TwinWorld {
  const records = new ClientRecords(requests, sink);
  const network = new TwinNetwork(settings.hops, settings.ackTimeoutUs, seededRandom(seedOf(`bus-faults/${settings.seed}`)), () => records.outstanding);
  const inbox: GatewayInbox = {
    error: (...frame) => gateway.error(...frame),
    migrate: (...frame) => gateway.migrate(...frame),
    end: (...frame) => gateway.end(...frame),
  };
  // The autoscaler hears what the stages hear, after them (a run without one is the run it was).
  const signals: WorkerSignals = {
    lifecycle: (event) => {
      stages.lifecycle(event);
      autoscaler?.onLifecycle(event);
    },
    load: (snapshot) => {
      stages.load(snapshot);
      autoscaler?.onSnapshot(snapshot);
    },
    get wantsKv() {
      return stages.wantsKv;
    },
    kv: (event) => stages.kv(event),
    done: (done) => stages.done(done),
    completing: (instanceId, requestIds, atUs) => stages.completing(instanceId, requestIds, atUs),
  };
  const workers: WorkerFleet = new WorkerFleet(
    settings.workers.map(
      (worker, p) =>
        new WorkerProcess(`worker-${p}`, worker, {
          network,
          signals,
          inbox,
          shutdownGraceUs: settings.shutdownGraceUs,
          checkInvariants: settings.checkInvariants,
          blis: settings.stages.compat === 'blis',
          outstanding: () => records.outstanding,
          instance: (instanceId): TwinInstance | undefined => workers.instances.get(instanceId),
        }),
    ),
  );
  const autoscaler = settings.autoscaler === undefined ? undefined : new TwinAutoscaler(settings.autoscaler, network, workers, settings.workers[0]!.heartbeatIntervalUs);
  const stages = new StageGroups(settings.stages, { network, inbox, workers, observer: settings.observer, queueListener: autoscaler && ((report) => autoscaler.onFlowQueue(report)) });
  const gateway = new TwinGateway(settings.gateway, network, stages.doors, workers, records);
  return { records, network, workers, stages, gateway, autoscaler };
}
