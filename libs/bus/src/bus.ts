import {
  connect,
  nkeyAuthenticator,
  NoRespondersError,
  RequestError,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import { context as otelContext, type Context } from '@opentelemetry/api';
import {
  MAX_BUS_MESSAGE_BYTES,
  AckSchema,
  BusFaultRuleSchema,
  ClearBusFaultsSchema,
  GetBusFaultsSchema,
  busHeaders,
  describeZodError,
  fastValidatorOf,
  subjects,
  type FastValidator,
  type BusFaultStats,
  type BusFaultsState,
} from '@sluice/contracts';
import type { z } from 'zod';
import { senderStillWaits } from '@sluice/collections';
import { AckInbox, type AckOutcome } from './ack-inbox.js';
import { BusRejections, type BusRejectionReason } from './bus-rejections.js';
import { BusFaultInjector, describeBusFaultRule } from './faults/bus-fault-injector.js';
import { Outbox } from './outbox.js';
import { RecentPublishes } from './recent-publishes.js';
import { extractTraceContext, injectTraceContext, traceHeaders } from './trace-headers.js';

/** How a "request in" hop ended, from the sender's side. */
/** How long one attempt to reach a NATS server may take, handshake included. */
const DIAL_TIMEOUT_MS = 2_000;

export type HandoffResult =
  /** `holder`: the receiver said who holds the request now (its ack names it: see AckSchema). */
  | { readonly ok: true; readonly holder?: string }
  | { readonly ok: false; readonly why: 'no_responders' | 'timeout' | 'nack' | 'closed'; readonly message: string };

/** What a control subject answers (see `answer`). */
export type ControlAnswer = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly message: string };

/** A control verb's answerer refused what it was asked (its message says why): asking again changes nothing. */
export class ControlRefusedError extends Error {
  override readonly name = 'ControlRefusedError';

  constructor(
    readonly subject: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Received<T> {
  readonly data: T;
  readonly subject: string;
  /** The trace context the sender propagated in the headers. */
  readonly traceContext: Context;
  readonly headers: MsgHdrs | undefined;
}

export type ConnectionEvent = 'disconnected' | 'reconnected';

export type Handler<T> = (message: Received<T>) => void | Promise<void>;

export interface BusOptions {
  /** One NATS URL, or a NATS cluster's as a comma-separated list (`nats://a:4222,nats://b:4222`). */
  readonly url: string;
  /** Connection name, shown by the NATS server's monitoring (`/connz`). */
  readonly name: string;
  /** How long a handoff waits for the receiver's ack. */
  readonly ackTimeoutMs: number;
  /**
   * A handoff is taken only while at least this much of its sender's ack wait is left
   * (`nats.ackMarginMs`; default 0: until the sender's last moment).
   */
  readonly ackMarginMs?: number;
  readonly log?: (line: string) => void;
  /**
   * Services wait for NATS and reconnect forever (the default). A one-shot client such as the
   * CLI sets this false: connecting fails at once when no server answers.
   */
  readonly waitForServer?: boolean;
  /**
   * Answer the bus-fault control verbs (`subjects.busFaults`), so chaos runs can fault what this
   * process sends. Default true; the CLI, which only asks, sets it false.
   */
  readonly answerFaultControl?: boolean;
  /** The random source of fault decisions (default Math.random; tests pass a seeded one). */
  readonly random?: () => number;
  /** The identity to connect as, when the server requires one (docs/security.md); anonymous otherwise. */
  readonly credentials?: { readonly user: string; readonly password: string };
  /**
   * Log in with an nkey instead (the seed, `SU…`): the server's nonce is signed, so nothing a
   * listener could replay is sent. The CLI asks a `sluice up` run's NATS this way (docs/security.md).
   */
  readonly nkeySeed?: string;
  /** TLS to the server: the CA that signed its certificate, and this process's own for mutual TLS. Absent: plain TCP. */
  readonly tls?: { readonly caFile: string; readonly certFile?: string; readonly keyFile?: string };
  /**
   * Where this process's request replies (acks, control answers) arrive: its identity's own inbox
   * prefix (`inboxPrefixOf`), which the server lets no other identity read. Default `_INBOX`.
   */
  readonly inboxPrefix?: string;
}

/**
 * How far before the connection's loss a reconnect sends again what this process published: the
 * time a client can take to notice its server is gone (a killed node's socket closes at once; one
 * that stops answering is noticed at the next ping); this covers the messages already written to
 * the lost connection. What is published after the loss is sent again too (`RecentPublishes`).
 */
const REPLAY_WINDOW_MS = 2_000;

/**
 * One NATS connection per process and the only code that touches it: JSON payloads, schemas
 * checked at the receiving edge, trace context in the headers, acknowledged handoffs.
 */
export class Bus {
  private connected = true;
  private readonly connectionListeners: ((event: ConnectionEvent) => void)[] = [];
  /** Bus fault rules on what this process sends (publish, handoff); none outside chaos runs. */
  private readonly faults: BusFaultInjector;
  /** What this process sends in one event-loop turn, sent together at its end (one socket write). */
  private readonly outbox: Outbox;
  /** Where the acks of this process's handoffs arrive. */
  private readonly acks: AckInbox;
  /** The "request in" subscriptions (`serve`): the ones that stop first at shutdown. */
  private readonly intakes = new Set<Subscription>();
  /** What the receiving edges refused, and handler failures, by subscription (the service's /metrics reads it). */
  readonly rejections = new BusRejections();
  /** What this process published lately: sent again when the connection comes back (`RecentPublishes`). */
  private readonly recent = new RecentPublishes(REPLAY_WINDOW_MS);

  private constructor(
    private readonly nc: NatsConnection,
    private readonly options: BusOptions,
  ) {
    this.outbox = new Outbox(nc, (subject, e) => this.log(`send on ${subject} failed: ${String(e)}`));
    this.acks = new AckInbox(nc, this.outbox, options.ackTimeoutMs, options.inboxPrefix);
    this.faults = new BusFaultInjector(options.random ?? Math.random, (e) => this.log(`delayed send failed: ${String(e)}`));
    void this.followStatus();
    if (options.answerFaultControl ?? true) this.answerFaultControl();
  }

  /** False from a disconnect until the client is connected again (services report not-ready meanwhile). */
  get isConnected(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  /**
   * Called when the connection to NATS is lost and when it is back. While it is away, anything
   * published is buffered by the client and may be lost (subscriptions are set up again on the
   * new server after the buffer is flushed), so a stage that owns state judges what it heard
   * during the outage with care: silence was the bus's, not the peers'.
   */
  onConnection(listener: (event: ConnectionEvent) => void): void {
    this.connectionListeners.push(listener);
  }

  private async followStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type !== 'disconnect' && status.type !== 'reconnect') continue;
      const event: ConnectionEvent = status.type === 'disconnect' ? 'disconnected' : 'reconnected';
      this.connected = event === 'reconnected';
      this.log(`NATS ${event}`);
      if (event === 'disconnected') this.recent.lost(performance.now());
      if (event === 'reconnected') this.replayRecent();
      for (const listener of this.connectionListeners) listener(event);
    }
  }

  /** Sends again what was published just before the connection was lost (see `RecentPublishes`). */
  private replayRecent(): void {
    const { messages, notKept } = this.recent.take(performance.now());
    if (messages.length === 0) return;
    const beyond = notKept > 0 ? ` (${notKept} more published during the outage were past the cap: the client's own buffer held them)` : '';
    this.log(`NATS reconnected: sending again the ${messages.length} messages published from ${REPLAY_WINDOW_MS} ms before the loss until now${beyond}`);
    for (const message of messages) this.outbox.send(message.subject, message.data, message.headers);
  }

  static async connect(options: BusOptions): Promise<Bus> {
    const wait = options.waitForServer ?? true;
    const nc = await connect({
      servers: natsServerList(options.url),
      name: options.name,
      ...(options.credentials ? { user: options.credentials.user, pass: options.credentials.password } : {}),
      ...(options.nkeySeed ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(options.nkeySeed)) } : {}),
      ...(options.tls ? { tls: { ...options.tls } } : {}),
      ...(options.inboxPrefix ? { inboxPrefix: options.inboxPrefix } : {}),
      // Reconnect forever: a NATS restart must not kill a service (docs/architecture.md, "Faults").
      maxReconnectAttempts: wait ? -1 : 0,
      reconnectTimeWait: 250,
      waitOnFirstConnect: wait,
      // Each dial of a server gives up this soon. A lost node whose host is gone drops the SYN, and
      // nats.js's default (20 s) then kept a gateway off the bus for 20 s while the other two nodes
      // were up (a compose nats-node-loss run: 26 of 58 requests admission_unavailable).
      timeout: DIAL_TIMEOUT_MS,
    });
    return new Bus(nc, options);
  }

  /**
   * What stops TLS with this server, or undefined: one connection attempt, no retries, closed at
   * once. A service that waits for its server retries a failed handshake for ever, so it asks this
   * first and can say at start-up that the server wants TLS, does not offer it, or presents a
   * certificate its CA does not verify. Any other failure (no server yet) is left to the waiting
   * connect.
   */
  static async tlsProblem(options: Pick<BusOptions, 'url' | 'tls' | 'credentials'>): Promise<Error | undefined> {
    try {
      const nc = await connect({
        servers: natsServerList(options.url),
        name: 'sluice-tls-check',
        ...(options.credentials ? { user: options.credentials.user, pass: options.credentials.password } : {}),
        ...(options.tls ? { tls: { ...options.tls } } : {}),
        maxReconnectAttempts: 0,
        waitOnFirstConnect: false,
      });
      await nc.close();
      return undefined;
    } catch (error) {
      return isTlsError(error) ? (error as Error) : undefined;
    }
  }

  get connection(): NatsConnection {
    return this.nc;
  }

  private log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
  }

  /** Fire-and-forget event or frame, with the active trace context. */
  publish(subject: string, payload: unknown, ctx?: Context): void {
    const data = JSON.stringify(payload);
    const headers = traceHeaders(ctx);
    this.recent.add(subject, data, headers, performance.now());
    // Fast path: no fault rule, one length check. Otherwise encoded now, sent when the rules say.
    if (this.faults.rules.size === 0) this.outbox.send(subject, data, headers);
    else this.faults.send(subject, () => this.outbox.send(subject, data, headers));
  }

  /**
   * A "request in" hop: send and wait only for the receiver's ack, which it gives on receipt.
   * The caller ends the request with a reason when this is not ok, instead of letting it die
   * silently at the gateway's deadline. `onHolder` hears an ack that names the request's holder
   * as the ack is read, before any message that arrived after it (the result comes later).
   */
  async handoff(subject: string, payload: unknown, requestId: string, attempt = 0, onHolder?: (holder: string) => void): Promise<HandoffResult> {
    const headers = injectTraceContext();
    headers.set(busHeaders.requestId, requestId);
    headers.set(busHeaders.attempt, String(attempt));
    try {
      const data = JSON.stringify(payload);
      const fault = this.faults.rules.size === 0 ? undefined : this.faults.decide(subject);
      // A dropped handoff is lost as on a real network: the sender hears nothing until its ack timeout.
      if (fault?.drop) {
        await this.faults.sleep(this.options.ackTimeoutMs);
        return lostHandoff(subject);
      }
      // As Envoy's fault delay: held before it is sent, and the ack timeout starts after.
      if (fault !== undefined && fault.delayMs > 0) await this.faults.sleep(fault.delayMs);
      let read: HandoffResult | undefined;
      const pending = this.acks.send(subject, data, headers, (outcome) => {
        read = readAck(outcome, subject);
        if (read.ok && read.holder !== undefined) onHolder?.(read.holder);
      });
      // The copy is a plain publish with the same headers: the receiver sees the handoff twice, and its ack to the copy goes nowhere.
      if (fault?.duplicate) this.outbox.send(subject, data, headers);
      const outcome = await pending;
      return read ?? readAck(outcome, subject);
    } catch (error) {
      return { ok: false, why: 'closed', message: `handoff to ${subject} failed: ${(error as Error).message}` };
    }
  }

  /**
   * Serves a "request in" subject: validates, acks at once, then runs the handler in the
   * sender's trace context. A message that fails validation is nacked with the reason. With
   * `holder`, each ack names it (AckSchema): the sender learns who holds the request from the ack.
   */
  serve<S extends z.ZodType>(subject: string, schema: S, handler: Handler<z.infer<S>>, queue?: string, holder?: string): Subscription {
    const ack = holder === undefined ? OK_ACK : JSON.stringify({ ok: true, holder });
    const subscription = this.subscribeValid(subject, schema, queue, this.nack, (msg, data) => {
      // Too late to ack in time: its sender re-submits it as a new attempt, so it is neither acked nor served.
      const ackBy = msg.headers?.get(busHeaders.ackBy);
      if (ackBy && !senderStillWaits(Number(ackBy), Date.now(), this.options.ackMarginMs ?? 0)) {
        const line = this.rejections.refused(subject, 'abandoned', msg.subject, `its sender stopped waiting for the ack at ${ackBy} (epoch ms) or does within ${this.options.ackMarginMs ?? 0} ms`);
        if (line) this.log(line);
        return;
      }
      this.respond(msg, ack);
      this.dispatch(subject, msg, data, handler);
    });
    this.intakes.add(subscription);
    void subscription.closed.then(() => this.intakes.delete(subscription));
    return subscription;
  }

  /**
   * Stops taking handoffs: every `serve` subscription drains. The server forgets it before it
   * handles anything this process sends next, so a request this process hands back at shutdown
   * and its gateway re-submits finds no responder here (and waits for a replica or the restart)
   * instead of coming back to a stage that is stopping. Handoffs already on their way are still
   * taken and acked. Resolves when their handlers have run. Events (`listen`) keep flowing: a
   * draining worker still hears cancels, a gateway finishing its streams still gets their frames.
   */
  async stopServing(): Promise<void> {
    const draining = [...this.intakes].map((subscription) => subscription.drain().catch(() => undefined));
    this.intakes.clear();
    await Promise.all(draining);
    await nextTurn(); // handlers run on microtasks: let every one of them send what it sends
  }

  /**
   * Serves a request/reply subject (control verbs): validates, runs the handler, replies with
   * `{ok: true, result}` or `{ok: false, message}`. A handler returning undefined does not reply
   * (the request was not for this process).
   */
  answer<S extends z.ZodType>(subject: string, schema: S, handler: (data: z.infer<S>) => unknown): Subscription {
    return this.subscribeValid(subject, schema, undefined, this.nack, (msg, data) => {
      Promise.resolve()
        .then(() => handler(data))
        .then(
          (result) => {
            if (result !== undefined) this.respond(msg, JSON.stringify({ ok: true, result }));
          },
          (e: unknown) => this.nack(msg, (e as Error).message),
        )
        .catch((e: unknown) => this.log(`reply on ${subject} failed: ${String(e)}`));
    });
  }

  /**
   * Asks a control subject and returns its result, or throws ControlRefusedError with the
   * answerer's message (no answer: nats.js's timeout or no-responders error).
   */
  async ask(subject: string, payload: unknown, timeoutMs = 2_000): Promise<unknown> {
    const reply = await this.nc.request(subject, JSON.stringify(payload), { timeout: timeoutMs });
    const answer = reply.json<ControlAnswer>();
    if (!answer.ok) throw new ControlRefusedError(subject, answer.message);
    return answer.result;
  }

  /**
   * Asks a control subject that several processes answer (one per worker process, say) and
   * collects every answer that arrives within `maxWaitMs`, or until none has come for `stallMs`
   * after the first. Resolves to an empty list when no process answers.
   */
  async askAll(subject: string, payload: unknown, { maxWaitMs = 2_000, stallMs = 200 } = {}): Promise<ControlAnswer[]> {
    const answers: ControlAnswer[] = [];
    try {
      const replies = await this.nc.requestMany(subject, JSON.stringify(payload), { strategy: 'stall', stall: stallMs, maxWait: maxWaitMs });
      for await (const reply of replies) answers.push(reply.json<ControlAnswer>());
    } catch (error) {
      if (!(error instanceof NoRespondersError) && !(error instanceof RequestError && error.isNoResponders())) throw error;
    }
    return answers;
  }

  /** Listens to events (no ack), validating each one; invalid events are counted, logged now and then, and skipped. */
  listen<S extends z.ZodType>(subject: string, schema: S, handler: Handler<z.infer<S>>, queue?: string): Subscription {
    return this.subscribeValid(
      subject,
      schema,
      queue,
      () => undefined,
      (msg, data) => this.dispatch(subject, msg, data, handler),
    );
  }

  /**
   * The one receiving edge: every message is decoded and checked against its schema here. A message
   * that fails is counted by the subscription's subject and the reason, and never reaches a handler;
   * nothing a message holds can throw out of this callback (into nats.js's parser, which would take
   * the connection down with it).
   */
  private subscribeValid<S extends z.ZodType>(
    subject: string,
    schema: S,
    queue: string | undefined,
    onInvalid: (msg: Msg, message: string) => void,
    onValid: (msg: Msg, data: z.infer<S>) => void,
  ): Subscription {
    const fast = fastValidatorOf(schema);
    return this.nc.subscribe(subject, {
      ...(queue ? { queue } : {}),
      callback: (error, msg) => {
        if (error) return this.log(`subscription ${subject} failed: ${error.message}`);
        try {
          const parsed = this.decode(msg, schema, fast);
          if (parsed.ok) return onValid(msg, parsed.data);
          const line = this.rejections.refused(subject, parsed.reason, msg.subject, parsed.message);
          if (line) this.log(line);
          onInvalid(msg, parsed.message);
        } catch (e) {
          this.rejections.handlerFailed(subject);
          this.log(`a message on ${msg.subject} failed at the edge: ${(e as Error).stack ?? String(e)}`);
        }
      },
    });
  }

  /**
   * Size first (an oversized message is not even parsed), then JSON, then the subject's schema.
   * A hot message's schema has a fast validator (contracts' fast-path): a message it accepts is
   * one zod would return unchanged, so it is taken as decoded; anything else goes to zod, which
   * strips, fills defaults and words the refusal as ever. Zod's check was 5–13% of each service's
   * busy time (docs/benchmarks.md, "Compiled validators").
   */
  private decode<S extends z.ZodType>(msg: Msg, schema: S, fast: FastValidator | undefined): { ok: true; data: z.infer<S> } | { ok: false; reason: BusRejectionReason; message: string } {
    if (msg.data.length > MAX_BUS_MESSAGE_BYTES) {
      return { ok: false, reason: 'oversized', message: `${msg.data.length} bytes, over the ${MAX_BUS_MESSAGE_BYTES} a message may have` };
    }
    let raw: unknown;
    try {
      raw = msg.json();
    } catch {
      return { ok: false, reason: 'malformed', message: 'payload is not JSON' };
    }
    if (fast?.(raw)) return { ok: true, data: raw as z.infer<S> };
    const result = schema.safeParse(raw);
    return result.success ? { ok: true, data: result.data } : { ok: false, reason: 'schema', message: describeZodError(result.error).join('; ') };
  }

  /**
   * Runs the handler on a microtask, in the sender's trace context. What it sends joins the ack in
   * the outbox, so both leave in the turn's one socket write. A handler that throws is logged and
   * counted under its subscription.
   */
  private dispatch<T>(subscription: string, msg: Msg, data: T, handler: Handler<T>): void {
    const traceContext = extractTraceContext(msg.headers);
    const received: Received<T> = { data, subject: msg.subject, traceContext, headers: msg.headers };
    otelContext.with(traceContext, () => {
      Promise.resolve()
        .then(() => handler(received))
        .catch((error: unknown) => {
          this.rejections.handlerFailed(subscription);
          this.log(`handler for ${msg.subject} failed: ${(error as Error).stack ?? String(error)}`);
        });
    });
  }

  /** How many messages this process's fault rules have delayed, dropped and duplicated. */
  faultStats(): BusFaultStats {
    return this.faults.stats();
  }

  /**
   * Answers the bus-fault control verbs with this process's name, rules and counts. Control
   * subjects themselves are never faulted, so a rule can always be cleared.
   */
  private answerFaultControl(): void {
    const processName = this.options.name;
    const state = (): BusFaultsState => ({ process: processName, rules: this.faults.rules.list(), applied: this.faults.stats() });
    this.answer(subjects.busFaults('get'), GetBusFaultsSchema, state);
    this.answer(subjects.busFaults('set'), BusFaultRuleSchema, (rule) => {
      const change = this.faults.rules.set(rule);
      this.log(`${processName}: bus fault ${change === 'added' ? 'set' : 'replaced'}: ${describeBusFaultRule(rule)}`);
      return state();
    });
    this.answer(subjects.busFaults('clear'), ClearBusFaultsSchema, ({ subject }) => {
      const removed = this.faults.rules.clear(subject);
      const what = removed.length === 0 ? 'nothing' : removed.map((r) => r.subject).join(', ');
      this.log(`${processName}: bus faults cleared (${subject === undefined ? 'all' : subject}): removed ${what}`);
      return state();
    });
  }

  /** A reply (ack, nack, control answer), sent with the rest of the turn. */
  private respond(msg: Msg, data: string): void {
    if (msg.reply) this.outbox.send(msg.reply, data);
  }

  /** Refuses a request-reply message with the reason. */
  private readonly nack = (msg: Msg, message: string): void => this.respond(msg, JSON.stringify({ ok: false, message }));

  /** Waits until the server has processed everything sent so far. */
  async flush(): Promise<void> {
    this.outbox.flush();
    await this.nc.flush();
  }

  /**
   * Shutdown: stops taking handoffs, waits for the acks of this process's own handoffs (at most
   * the ack timeout), then drains every subscription and pending publish, and closes. Closing
   * the ack inbox with handoffs still waiting would read as a closed connection: the stage would
   * end a request its next stage had in fact taken (restarts under load did so,
   * `503 flow_unavailable` from an admission restart).
   */
  async drain(): Promise<void> {
    this.faults.flush();
    if (this.nc.isClosed()) return;
    await this.stopServing();
    await this.acks.whenIdle();
    await nextTurn(); // a refused handoff's hand-back is published before the connection goes
    this.outbox.flush();
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}

/** Resolves after the microtasks queued so far (and those they queue) have run. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What a handoff dropped by a fault rule resolves to: the same as one lost on the network. */
function lostHandoff(subject: string): HandoffResult {
  return { ok: false, why: 'timeout', message: `no ack from ${subject} in time` };
}

/** The ack every healthy receiver sends, compared as text before any parsing (the common case). */
const OK_ACK = JSON.stringify({ ok: true });

/** What a handoff's ack wait means for the sender. */
function readAck(outcome: AckOutcome, subject: string): HandoffResult {
  switch (outcome.kind) {
    case 'no_responders':
      return { ok: false, why: 'no_responders', message: `no service is listening on ${subject}` };
    case 'timeout':
      return lostHandoff(subject);
    case 'closed':
      return { ok: false, why: 'closed', message: `handoff to ${subject} failed: the NATS connection is closed` };
    case 'reply': {
      const text = outcome.msg.string();
      if (text === OK_ACK) return { ok: true };
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        return { ok: false, why: 'nack', message: `malformed ack from ${subject}` };
      }
      const ack = AckSchema.safeParse(raw);
      if (!ack.success) return { ok: false, why: 'nack', message: `malformed ack from ${subject}` };
      if (!ack.data.ok) return { ok: false, why: 'nack', message: ack.data.message };
      return ack.data.holder === undefined ? { ok: true } : { ok: true, holder: ack.data.holder };
    }
  }
}

/**
 * The servers of a NATS URL list, one entry each. nats.js reads a string as one URL, so a
 * comma-separated list given whole became its last server alone: every client connected to the
 * same node, and one that (re)started while that node was gone had nowhere to go. As a list, each
 * client starts at a random node and knows the others from the start.
 */
export function natsServerList(url: string): string[] {
  return url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A failure of TLS itself (Node's certificate and handshake errors, nats.js's "requires TLS"), not of reaching the server. */
export function isTlsError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return /CERT|SSL|TLS|SELF_SIGNED|LEAF_SIGNATURE/i.test(code) || /\btls\b|certificate|self[- ]signed/i.test(error.message);
}
