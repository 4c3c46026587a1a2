import { z } from 'zod';
import { defineFault } from '../fault-definition.js';
import { AT, PositiveMs } from '../fault-fields.js';
import { EXTERNAL_NATS } from '../live-ports.js';

/** NATS stops and starts again `forMs` later, on the same address. */
export const RestartNatsFaultSchema = z.strictObject({ ...AT, action: z.literal('restart-nats'), forMs: PositiveMs });
export type RestartNatsFault = z.output<typeof RestartNatsFaultSchema>;

const detail = (fault: RestartNatsFault) => `NATS down for ${fault.forMs} ms, then up again`;

export const restartNatsFault = defineFault({
  action: 'restart-nats',
  schema: RestartNatsFaultSchema,
  examples: [{ atMs: 8_000, action: 'restart-nats', forMs: 1_500 }],
  target: () => 'nats',
  // One step: NATS is stopped, and started again after forMs, by the start itself.
  endsWithItsStart: true,
  local: {
    whyNot: (_fault, port) => {
      if (port.nats === 'external') return Promise.resolve(EXTERNAL_NATS);
      if (port.nats === 'cluster') return Promise.resolve('NATS runs as a cluster (nats.clusterSize): restart one node with stop-nats-node and forMs');
      return Promise.resolve(undefined);
    },
    run: (fault, { port }) => ({
      start: async () => {
        await port.restartNats(fault.forMs);
        return detail(fault);
      },
    }),
  },
  compose: {
    run: (fault, { port }) => ({
      start: async () => {
        const nats = await port.container('nats');
        await port.docker(['stop', '--time', '0', nats.id]);
        await port.sleep(fault.forMs);
        await port.docker(['start', nats.id]);
        return detail(fault);
      },
    }),
  },
  twin: { notModelled: () => 'restart-nats: the twin has no NATS server (no reconnects, no lost frames)' },
});
