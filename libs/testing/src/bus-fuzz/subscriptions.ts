import {
  BusFaultRuleSchema,
  BusyThresholdUpdateSchema,
  CancelRequestSchema,
  FlowQueueReportSchema,
  ClearBusFaultsSchema,
  GetBusFaultsSchema,
  InboxFrameSchema,
  InferenceRequestSchema,
  KvEventSchema,
  LifecycleEventSchema,
  LoadSnapshotSchema,
  MAX_BUS_MESSAGE_BYTES,
  PresenceEventSchema,
  RequestDoneSchema,
  BusyThresholdsAnnouncementSchema,
  SetAdmissionPolicySchema,
  SetWorkerFaultsSchema,
  subjectMatches,
  subjectPatterns,
  subjects,
} from '@sluice/contracts';
import { z } from 'zod';

/**
 * What each process of a one-replica cluster subscribes to, with the schema its edge checks: the
 * fuzz test's oracle of which messages each one must refuse. Written out here from the subject
 * map (docs/architecture.md, "Subjects") rather than read from the apps, so a service that stops
 * checking a subject, or starts listening where nobody said, shows up as a count that differs.
 */
export interface Subscription {
  readonly pattern: string;
  readonly schema: z.ZodType;
  /** A control verb that changes state: the fuzzer sends it only messages its schema refuses. */
  readonly changesState?: boolean;
}

/** The ids a running cluster's subjects are built from. */
export interface ClusterIds {
  readonly gatewayId: string;
  /** The worker process's instances (`<worker id>-r<rank>`). */
  readonly instanceIds: readonly string[];
}

const busVerbs = (): Subscription[] => [
  { pattern: subjects.busFaults('get'), schema: GetBusFaultsSchema },
  { pattern: subjects.busFaults('set'), schema: BusFaultRuleSchema, changesState: true },
  { pattern: subjects.busFaults('clear'), schema: ClearBusFaultsSchema, changesState: true },
];

const workerEvents = (kinds: readonly ('lifecycle' | 'load' | 'kv' | 'done')[]): Subscription[] =>
  kinds.map((kind) => {
    switch (kind) {
      case 'lifecycle':
        return { pattern: subjectPatterns.allWorkerLifecycle, schema: LifecycleEventSchema };
      case 'load':
        return { pattern: subjectPatterns.allWorkerLoad, schema: LoadSnapshotSchema };
      case 'kv':
        return { pattern: subjectPatterns.allWorkerKv, schema: KvEventSchema };
      case 'done':
        return { pattern: subjectPatterns.allWorkerDone, schema: RequestDoneSchema };
    }
  });

/** Every process's subscriptions, by process name (`worker-0` hosts every instance). */
export function subscriptionsOf(ids: ClusterIds): ReadonlyMap<string, readonly Subscription[]> {
  return new Map<string, Subscription[]>([
    [
      'admission',
      [
        { pattern: subjects.admissionSubmit(), schema: InferenceRequestSchema },
        { pattern: subjects.requestCancel(), schema: CancelRequestSchema },
        ...workerEvents(['lifecycle', 'load', 'kv']),
        // A valid announcement with a newer time would change the thresholds: only refused ones are sent.
        { pattern: subjects.busyThresholds(), schema: BusyThresholdsAnnouncementSchema, changesState: true },
        { pattern: subjectPatterns.allFlowQueues, schema: FlowQueueReportSchema },
        { pattern: subjectPatterns.admissionPresence, schema: PresenceEventSchema },
        { pattern: subjects.control('admission', 'get'), schema: z.object({}) },
        { pattern: subjects.control('admission', 'set'), schema: SetAdmissionPolicySchema, changesState: true },
        { pattern: subjects.control('admission', 'get-busy-threshold'), schema: z.object({}) },
        { pattern: subjects.control('admission', 'set-busy-threshold'), schema: BusyThresholdUpdateSchema, changesState: true },
        ...busVerbs(),
      ],
    ],
    ['flow-controller', [{ pattern: subjects.flowSubmit(), schema: InferenceRequestSchema }, { pattern: subjects.requestCancel(), schema: CancelRequestSchema }, ...workerEvents(['lifecycle', 'load', 'done']), ...busVerbs()]],
    [
      'router',
      [
        { pattern: subjects.routerSubmit(), schema: InferenceRequestSchema },
        { pattern: subjects.requestCancel(), schema: CancelRequestSchema },
        // kv: always subscribed (its KV-event index reads them when its policy does; ignored otherwise).
        ...workerEvents(['lifecycle', 'load', 'done', 'kv']),
        { pattern: subjects.busyThresholds(), schema: BusyThresholdsAnnouncementSchema, changesState: true },
        ...busVerbs(),
      ],
    ],
    [
      'worker-0',
      [
        ...ids.instanceIds.map((id) => ({ pattern: subjects.workerSubmit(id), schema: InferenceRequestSchema })),
        { pattern: subjects.requestCancel(), schema: CancelRequestSchema },
        { pattern: subjects.workerDiscover(), schema: z.object({}) },
        { pattern: subjects.control('worker', 'set-faults'), schema: SetWorkerFaultsSchema, changesState: true },
        { pattern: subjects.control('worker', 'get-faults'), schema: z.object({ instanceId: z.string().optional() }) },
        ...busVerbs(),
      ],
    ],
    [
      'gateway',
      [
        { pattern: subjects.inboxOfGateway(ids.gatewayId), schema: InboxFrameSchema },
        { pattern: subjectPatterns.allServicePresence, schema: PresenceEventSchema },
        { pattern: subjectPatterns.allWorkerLifecycle, schema: LifecycleEventSchema },
        ...busVerbs(),
      ],
    ],
  ]);
}

/** Whether a receiving edge takes this payload under `schema`: what `Bus.decode` decides. */
export function edgeAccepts(schema: z.ZodType, payload: Uint8Array): boolean {
  if (payload.length > MAX_BUS_MESSAGE_BYTES) return false;
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return false;
  }
  return schema.safeParse(raw).success;
}

/** The subscriptions of every process that receive a message on `subject`. */
export function receiversOf(subscriptions: ReadonlyMap<string, readonly Subscription[]>, subject: string): { process: string; subscription: Subscription }[] {
  const found: { process: string; subscription: Subscription }[] = [];
  for (const [process, subs] of subscriptions) {
    for (const subscription of subs) if (subjectMatches(subscription.pattern, subject)) found.push({ process, subscription });
  }
  return found;
}
