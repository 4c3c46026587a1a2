import { connect, type NatsConnection } from '@nats-io/transport-node';
import { RpcException } from '@nestjs/microservices';
import { Bus, epochMicros } from '@sluice/bus';
import {
  BusyThresholdUpdateSchema,
  InferenceRequestSchema,
  LifecycleEventSchema,
  SetAdmissionPolicySchema,
  micros,
  subjectPatterns,
  subjects,
  type CancelRequest,
  type InferenceRequest,
  type PresenceEvent,
} from '@sluice/contracts';
import { startNats, type NatsServerHandle } from '@sluice/launcher';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { SluiceConfig } from '@sluice/config';
import { Registry, trace } from '@sluice/telemetry';
import { BusTransport } from '../bus.transport.js';
import { bootstrapService, type RunningService } from '../service-bootstrap.js';
import type { ServiceContext } from '../service-context.js';
import { requestStage, type AnyStageDefinition, type HostedCore, type StageHostKit } from './stage-definition.js';
import { StageHost } from './stage-host.js';
import { stageHostProvider } from './stage-host.provider.js';
import { stageRoutes } from './stage-routes.js';

/**
 * The stage host on a real nats-server, driving two tiny stages whose cores write what reaches
 * them into a journal: one that holds requests (as flow control does), one with presence and
 * control verbs (as admission has). A second Bus plays the gateway and the workers.
 */

const GATEWAY = 'gw-test';

/** What reached a tiny stage's core, in order; `seen` waits for a line (the guard only fails the test). */
class Journal {
  readonly lines: string[] = [];
  private readonly waiters: { line: string; resolve: () => void }[] = [];

  write(line: string): void {
    this.lines.push(line);
    for (const waiter of this.waiters.filter((w) => w.line === line)) waiter.resolve();
  }

  seen(line: string, timeoutMs = 10_000): Promise<void> {
    if (this.lines.includes(line)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error(`never saw "${line}"; saw ${JSON.stringify(this.lines)}`)), timeoutMs);
      this.waiters.push({ line, resolve: () => (clearTimeout(guard), resolve()) });
    });
  }

  count(prefix: string): number {
    return this.lines.filter((l) => l.startsWith(prefix)).length;
  }
}

/** The frames the gateway got on its inbox, as `<type> <request>#<attempt>[ <detail>]`. */
function inboxOf(nc: NatsConnection): Journal {
  const frames = new Journal();
  nc.subscribe(subjects.inboxOfGateway(GATEWAY), {
    callback: (_, msg) => {
      const frame = msg.json<{ type: string; requestId: string; attempt: number; stage?: string; reason?: string }>();
      frames.write(`${frame.type} ${frame.requestId}#${frame.attempt}${frame.stage ? ` ${frame.stage}` : ''}${frame.reason ? ` ${frame.reason}` : ''}`);
    },
  });
  return frames;
}

function request(id: string, attempt = 0): InferenceRequest {
  const nowUs = epochMicros();
  return InferenceRequestSchema.parse({
    id,
    model: 'm',
    inputTokens: 16,
    blockHashes: [],
    maxTokens: 4,
    sloClass: 'standard',
    priority: 0,
    fairnessId: 'tenant',
    arrivalUs: nowUs,
    deadlineUs: nowUs + 60_000_000,
    attempt,
    gatewayId: GATEWAY,
    replyTo: subjects.inbox(GATEWAY, id),
  });
}

/** A core that writes its life into the journal and asks for one wake-up 20 ms after it starts. */
function journalingCore(journal: Journal, kit: StageHostKit, stop: () => number | void = () => undefined): HostedCore {
  return {
    start: (nowUs) => {
      journal.write('start');
      kit.wakeUps.wakeAt('tick', micros(nowUs + 20_000));
    },
    stop,
    wake: (kind) => journal.write(`wake ${kind}`),
    suspendExpiry: () => journal.write('expiry suspended'),
    resumeExpiry: () => journal.write('expiry resumed'),
  };
}

/** As flow control: it holds what it takes, drops what cancels end, and hands what it holds back at shutdown. */
function holdingStage(journal: Journal) {
  return requestStage({
    stage: 'flow',
    follows: ['lifecycle'],
    wire(kit) {
      const held = new Map<string, InferenceRequest>();
      const stop = (): number => {
        journal.write(`stop (bus open: ${!kit.service.bus.connection.isClosed()})`);
        for (const r of held.values()) kit.intake.handBack(r, { reason: 'stage_shutdown', resumeAt: 'flow' });
        return held.size;
      };
      return {
        core: journalingCore(journal, kit, stop),
        take: (r) => {
          held.set(r.id, r);
          journal.write(`take ${r.id}#${r.attempt}`);
        },
        cancel: (c: CancelRequest) => {
          if (held.get(c.requestId)?.attempt === c.attempt || c.attempt === undefined) held.delete(c.requestId);
          journal.write(`cancel ${c.requestId}#${c.attempt ?? 'all'} ${c.reason}`);
        },
        follow: { lifecycle: (event) => journal.write(`lifecycle ${event.instanceId} ${event.type}`) },
      };
    },
  });
}

const NO_ARGUMENTS = z.object({});

/** As admission: presence of its replicas and control verbs; a core that holds nothing (no `cancel`). */
function answeringStage(journal: Journal) {
  return requestStage({
    stage: 'admission',
    follows: [],
    presence: subjectPatterns.admissionPresence,
    controls: { get: NO_ARGUMENTS, set: SetAdmissionPolicySchema, 'set-busy-threshold': BusyThresholdUpdateSchema },
    wire: (kit) => ({
      core: journalingCore(journal, kit),
      take: (r) => journal.write(`take ${r.id}#${r.attempt}`),
      follow: {},
      presence: (event: PresenceEvent) => journal.write(`presence ${event.processId} ${event.type}`),
      controls: {
        get: () => ({ policy: 'always-admit', params: {} }),
        set: ({ policy }) => {
          throw new RpcException(`unknown admission policy "${String(policy)}"`);
        },
        'set-busy-threshold': () => {
          throw new Error('a bug, with details the asker must not read');
        },
      },
    }),
  });
}

function host(nats: NatsServerHandle, name: string, definition: AnyStageDefinition): Promise<RunningService<object>> {
  return bootstrapService({
    name,
    config: {},
    natsUrl: nats.url,
    ackTimeoutMs: 2_000,
    http: { host: '127.0.0.1', port: 0 },
    module: { module: class StageUnderTest {}, providers: [stageHostProvider(definition)] },
    routes: stageRoutes(definition),
  });
}

let nats: NatsServerHandle;
let gateway: Bus;
let peer: NatsConnection;
let frames: Journal;

beforeAll(async () => {
  nats = await startNats();
  gateway = await Bus.connect({ url: nats.url, name: GATEWAY, ackTimeoutMs: 2_000, waitForServer: false, answerFaultControl: false });
  peer = await connect({ servers: nats.url });
  frames = inboxOf(peer);
  await peer.flush();
});

afterAll(async () => {
  await gateway?.drain();
  await peer?.close();
  await nats?.stop();
});

describe('a stage that holds requests, on the host', () => {
  const journal = new Journal();
  let running: RunningService<object> | undefined;
  let closed = false;
  const submit = (r: InferenceRequest) => gateway.handoff(subjects.flowSubmit(), r, r.id, r.attempt);
  const cancel = (c: CancelRequest) => gateway.publish(subjects.requestCancel(), c);

  beforeAll(async () => {
    running = await host(nats, 'sluice-test-holding', holdingStage(journal));
  });

  afterAll(async () => {
    if (!closed) await running?.app.close(); // Nest would run the destroy hooks a second time
  });

  it('starts its core before it serves anything, is ready, and wakes the core when it asked', async () => {
    expect(journal.lines[0]).toBe('start');
    expect((await fetch(`${running!.url}/readyz`)).status).toBe(200);
    await journal.seen('wake tick');
  });

  it("serves a duplicated handoff once, and tells the request's gateway once who holds it", async () => {
    expect(await submit(request('dup'))).toEqual({ ok: true });
    expect(await submit(request('dup'))).toEqual({ ok: true }); // taken at the door (acked), not served
    await submit(request('after-dup'));
    await journal.seen('take after-dup#0');
    await frames.seen('held after-dup#0 flow');
    expect(journal.count('take dup#')).toBe(1);
    expect(frames.count('held dup#')).toBe(1);
  });

  it('does not serve a request whose cancel came first, and tells the core of the cancel', async () => {
    cancel({ requestId: 'early', reason: 'client_disconnected' });
    await journal.seen('cancel early#all client_disconnected');
    expect(await submit(request('early'))).toEqual({ ok: true });
    await submit(request('after-early'));
    await journal.seen('take after-early#0');
    expect(journal.count('take early#')).toBe(0);
    expect(frames.count('held early#')).toBe(0);
  });

  it('drops an older attempt it still holds before it takes the newer one (the cancel was lost)', async () => {
    await submit(request('moved', 0));
    await journal.seen('take moved#0');
    await submit(request('moved', 1));
    await journal.seen('take moved#1');
    const from = journal.lines.indexOf('take moved#0');
    expect(journal.lines.slice(from, from + 3)).toEqual(['take moved#0', 'cancel moved#0 superseded', 'take moved#1']);
  });

  it('leaves the newer attempt alone when a cancel of an older one arrives late, and serves no copy of the older', async () => {
    cancel({ requestId: 'moved', reason: 'superseded', attempt: 0 });
    await submit(request('moved', 0)); // a stray copy of the old attempt
    cancel({ requestId: 'moved', reason: 'ended', attempt: 1 });
    await journal.seen('cancel moved#1 ended');
    expect(journal.count('cancel moved#0')).toBe(1); // only the supersede, from the host
    expect(journal.count('take moved#0')).toBe(1);
  });

  it('takes worker events that pass the edge, and counts those that do not', async () => {
    const event = LifecycleEventSchema.parse({ instanceId: 'w-r0', workerId: 'w', rank: 0, model: 'm', totalKvBlocks: 8, type: 'register', atUs: epochMicros() });
    gateway.publish(subjects.workerLifecycle('w-r0'), { ...event, type: 'reborn' });
    gateway.publish(subjects.workerLifecycle('w-r0'), event);
    await journal.seen('lifecycle w-r0 register');
    expect(journal.count('lifecycle')).toBe(1);
    expect(running!.context.bus.rejections.rejections()).toEqual([{ subject: subjectPatterns.allWorkerLifecycle, reason: 'schema', count: 1 }]);
  });

  // On SIGTERM the bootstrap also turns readiness false and stops taking handoffs first (the flow
  // controller's shutdown spec sends the signal to a real process); closing the app runs the rest.
  it('stops its core when the app closes, before the bus drains, so what it hands back reaches the gateway', async () => {
    // Taken and not ended: 'early' was never served, 'moved' was ended by its gateway's cancel.
    const holding = ['dup', 'after-dup', 'after-early'];
    const written: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    try {
      closed = true;
      await running!.app.close();
    } finally {
      stdout.mockRestore();
    }
    expect(journal.lines.at(-1)).toBe('stop (bus open: true)');
    expect(written.filter((line) => line.includes('shutting down: handed 3 queued requests back to their gateways'))).toHaveLength(1);
    for (const id of holding) await frames.seen(`migrate ${id}#0 stage_shutdown`);
    expect(frames.count('migrate')).toBe(holding.length);
  });
});

describe('a stage with presence and control verbs, on the host', () => {
  const journal = new Journal();
  let running: RunningService<object>;

  beforeAll(async () => {
    running = await host(nats, 'sluice-test-answering', answeringStage(journal));
  });

  afterAll(async () => {
    await running?.app.close();
  });

  it("takes its replicas' presence", async () => {
    const up: PresenceEvent = { service: 'admission', processId: 'admission-x', type: 'up', atUs: epochMicros() };
    gateway.publish(subjects.servicePresence('admission', 'admission-x'), up);
    await journal.seen('presence admission-x up');
  });

  it("answers its control verbs; a refusal's message reaches the asker, a fault's does not", async () => {
    expect(await gateway.ask(subjects.control('admission', 'get'), {})).toEqual({ policy: 'always-admit', params: {} });
    await expect(gateway.ask(subjects.control('admission', 'set'), { policy: 'coin-flip' })).rejects.toThrow('unknown admission policy "coin-flip"');
    await expect(gateway.ask(subjects.control('admission', 'set-busy-threshold'), { model: 'm' })).rejects.toThrow(/^Internal server error$/);
    await expect(gateway.ask(subjects.control('admission', 'set'), { policy: 42 })).rejects.toThrow(/policy/); // refused at the edge
  });

  it("names itself the request's holder in its ack, and sends no held frame: its gateway waits for that ack anyway", async () => {
    expect(await gateway.handoff(subjects.admissionSubmit(), request('acked'), 'acked')).toEqual({ ok: true, holder: running.context.instanceId });
    await journal.seen('take acked#0');
    // A frame the stage sent with the take would be in the peer's socket before the answer to this flush.
    await gateway.handoff(subjects.admissionSubmit(), request('acked-2'), 'acked-2');
    await journal.seen('take acked-2#0');
    await peer.flush();
    expect(frames.count('held acked')).toBe(0);
  });

  it('does not serve a cancelled request, though its core holds nothing to cancel', async () => {
    gateway.publish(subjects.requestCancel(), { requestId: 'gone', reason: 'timeout' });
    await gateway.flush();
    await gateway.handoff(subjects.admissionSubmit(), request('gone'), 'gone');
    await gateway.handoff(subjects.admissionSubmit(), request('kept'), 'kept');
    await journal.seen('take kept#0');
    expect(journal.count('take gone#')).toBe(0);
  });
});

describe('a stage whose wiring leaves out a route it declares', () => {
  it('does not start, and says which', async () => {
    const incomplete = requestStage({
      stage: 'router',
      follows: ['lifecycle', 'done'],
      // @ts-expect-error -- the types say it first: `done` is declared and not taken
      wire: (kit) => ({ core: journalingCore(new Journal(), kit), take: () => undefined, follow: { lifecycle: () => undefined } }),
    });
    const bus = await Bus.connect({ url: nats.url, name: 'incomplete', ackTimeoutMs: 2_000, waitForServer: false, answerFaultControl: false });
    try {
      const service: ServiceContext<SluiceConfig> = {
        name: 'sluice-test-incomplete',
        instanceId: 'incomplete-1',
        config: {} as SluiceConfig, // the host reads none of it
        bus,
        tracer: trace.getTracer('test'),
        metrics: new Registry(),
        readiness: () => null,
      };
      expect(() => new StageHost(incomplete, service, new BusTransport(bus, stageRoutes(incomplete), 'incomplete-1'), [])).toThrow(
        'the router stage declares done events but its wiring does not take it',
      );
    } finally {
      await bus.drain();
    }
  });
});

describe('a stage while the bus is away', () => {
  it('expires no peer while NATS is down, and resumes when it is back', async () => {
    const own = await startNats();
    const journal = new Journal();
    const running = await host(own, 'sluice-test-outage', holdingStage(journal));
    const port = Number(new URL(own.url).port);
    try {
      await own.stop();
      await journal.seen('expiry suspended');
      const readyz = await fetch(`${running.url}/readyz`);
      expect([readyz.status, await readyz.json()]).toEqual([503, { status: 'not ready', reason: 'NATS disconnected (reconnecting)' }]);
      const again = await startNats({ port });
      try {
        await journal.seen('expiry resumed');
      } finally {
        await running.app.close();
        await again.stop();
      }
    } finally {
      await own.stop();
    }
  });
});
