import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import type { z } from 'zod';
import type { Subscription } from '@nats-io/transport-node';
import type { Bus, Received } from '../bus.js';

/** How a subject handled by a `@MessagePattern` / `@EventPattern` is received. */
export interface InboundRoute {
  readonly schema: z.ZodType;
  /** Queue group: stateless services scale out by joining it. */
  readonly queue?: string;
  /** `handoff`: ack on receipt, then work. `event`: no reply. */
  readonly kind: 'handoff' | 'event';
}

/**
 * A Nest transport strategy on sluice's bus. Why not Nest's built-in NATS transport: it replies
 * when the handler finishes and wraps payloads in Nest's own `{pattern, data, id}` envelope. The
 * protocol needs the opposite on both counts: the receiver acks at once and then works (so a
 * handoff confirms receipt only), and the wire is plain JSON checked by the schemas in
 * libs/contracts, so peers that are not Nest (the CLI, workers, `nats` tools) speak it too.
 * It also shares the process's one NATS connection with the publishers.
 */
export class BusTransport extends Server implements CustomTransportStrategy {
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly routes: ReadonlyMap<string, InboundRoute>,
  ) {
    super();
  }

  listen(callback: () => void): void {
    for (const [pattern, handler] of this.messageHandlers) {
      const route = this.routes.get(pattern);
      if (!route) throw new Error(`no inbound route (schema, queue) is declared for pattern "${pattern}"`);
      const run = async (message: Received<unknown>) => {
        const result: unknown = await handler(message.data, message);
        this.transformToObservable(result).subscribe();
      };
      this.subscriptions.push(
        route.kind === 'handoff'
          ? this.bus.serve(pattern, route.schema, run, route.queue)
          : this.bus.listen(pattern, route.schema, run, route.queue),
      );
    }
    callback();
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
