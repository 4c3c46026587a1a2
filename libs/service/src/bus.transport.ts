import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import type { z } from 'zod';
import type { Subscription } from '@nats-io/transport-node';
import type { Bus, Received } from '@sluice/bus';

/** How a subject is received: its schema (checked at the edge), queue group and kind. */
export interface InboundRoute {
  readonly schema: z.ZodType;
  /** Queue group: stateless services scale out by joining it. */
  readonly queue?: string;
  /**
   * `handoff`: ack on receipt, then work. `event`: no reply. `control`: request/reply, answered
   * with the handler's result (`{ok, result}`) or its error (`{ok: false, message}`).
   */
  readonly kind: 'handoff' | 'event' | 'control';
  /**
   * A handoff whose ack names this process as the request's holder (AckSchema): for a stage whose
   * sender is always the gateway that owns the request, which then needs no `held` frame.
   */
  readonly ackNamesHolder?: true;
}

/**
 * A Nest transport strategy on sluice's bus. Why not Nest's built-in NATS transport: it replies
 * when the handler finishes and wraps payloads in Nest's own `{pattern, data, id}` envelope. The
 * protocol needs the opposite on both counts: the receiver acks at once and then works (so a
 * handoff confirms receipt only), and the wire is plain JSON checked by the schemas in
 * libs/contracts, so peers that are not Nest (the CLI, workers, `nats` tools) speak it too.
 * It also shares the process's one NATS connection with the publishers.
 *
 * Handlers come from `@MessagePattern`/`@EventPattern` methods or from `handle` (the stage host
 * registers its own); either way every handler needs a declared route and every declared route a
 * handler, so a subject cannot be subscribed without its schema, nor declared and never heard.
 */
export class BusTransport extends Server implements CustomTransportStrategy {
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly routes: ReadonlyMap<string, InboundRoute>,
    /** This process's id: the holder an `ackNamesHolder` route's acks name. */
    private readonly processId: string,
  ) {
    super();
  }

  /**
   * Handles a declared route's messages with `handler`. `schema` must be the very one the route
   * declares: the edge validates with the route's, so the handler's type is the one it checked.
   */
  handle<T>(pattern: string, schema: z.ZodType<T>, handler: (data: T) => unknown): void {
    const route = this.routes.get(pattern);
    if (!route) throw new Error(`no inbound route (schema, queue) is declared for pattern "${pattern}"`);
    if (route.schema !== schema) throw new Error(`the handler of "${pattern}" expects another schema than its route declares`);
    if (this.messageHandlers.has(pattern)) throw new Error(`pattern "${pattern}" is handled twice`);
    this.addHandler(pattern, async (data: T) => handler(data), route.kind === 'event');
  }

  listen(callback: () => void): void {
    const unheard = [...this.routes.keys()].filter((pattern) => !this.messageHandlers.has(pattern));
    if (unheard.length > 0) throw new Error(`no handler for the declared routes ${unheard.map((p) => `"${p}"`).join(', ')}`);
    for (const [pattern, handler] of this.messageHandlers) {
      const route = this.routes.get(pattern);
      if (!route) throw new Error(`no inbound route (schema, queue) is declared for pattern "${pattern}"`);
      this.subscriptions.push(this.subscribe(pattern, route, handler));
    }
    callback();
  }

  /**
   * Nest's `transformToObservable` would wrap every handler's result in an Observable to subscribe
   * to it; a result here is almost always a plain value (awaited, so never a promise), which only an
   * Observable needs. So one is made only for a handler that returns an Observable: per message that
   * saves the Observable, its subscriber and its subscription (the three middle stages take four or
   * five messages a request).
   */
  private subscribe(pattern: string, route: InboundRoute, handler: MessageHandler): Subscription {
    const run = async (message: Received<unknown>) => {
      const result: unknown = await handler(message.data, message);
      if (isObservable(result)) result.subscribe();
    };
    switch (route.kind) {
      case 'handoff':
        return this.bus.serve(pattern, route.schema, run, route.queue, route.ackNamesHolder ? this.processId : undefined);
      case 'event':
        return this.bus.listen(pattern, route.schema, run, route.queue);
      case 'control':
        return this.bus.answer(pattern, route.schema, async (data) => {
          const result: unknown = await handler(data);
          return isObservable(result) ? lastValueFrom(result, { defaultValue: undefined }) : result;
        });
    }
  }

  close(): void {
    for (const sub of this.subscriptions) sub.unsubscribe();
    this.subscriptions.length = 0;
  }

  on(): never {
    throw new Error('BusTransport does not emit transport events');
  }

  unwrap<T>(): T {
    return this.bus.connection as T;
  }
}
