import { z } from 'zod';
import { busFaultsFault } from './bus-faults/bus-faults.fault.js';
import { disconnectFault } from './disconnect/disconnect.fault.js';
import type { FaultDefinition } from './fault-definition.js';
import { FaultRegistry } from './fault-registry.js';
import { killFault } from './kill/kill.fault.js';
import { pauseFault } from './pause/pause.fault.js';
import { restartNatsFault } from './restart-nats/restart-nats.fault.js';
import { stopNatsNodeFault } from './stop-nats-node/stop-nats-node.fault.js';
import { terminateFault } from './terminate/terminate.fault.js';
import { workerFaultsFault } from './worker-faults/worker-faults.fault.js';

/**
 * Every fault a scenario can name, one line each, in the order docs/chaos.md lists them. A new
 * fault is a folder beside these and one line here: the scenario schema, the registry and the
 * conformance suites take it from this list.
 */
export const BUILT_IN_FAULTS = [
  killFault,
  terminateFault,
  pauseFault,
  disconnectFault,
  restartNatsFault,
  stopNatsNodeFault,
  workerFaultsFault,
  busFaultsFault,
] as const;

export function registerBuiltInFaults(registry: FaultRegistry): FaultRegistry {
  for (const definition of BUILT_IN_FAULTS) registry.register(definition);
  return registry;
}

export function createFaultRegistry(): FaultRegistry {
  return registerBuiltInFaults(new FaultRegistry());
}

type SchemasOf<T extends readonly FaultDefinition[]> = { -readonly [K in keyof T]: T[K]['schema'] };

/** One fault of a scenario: the discriminated union (on `action`) of the faults' schemas, so an error names the fault's own key. */
export function faultSchemaOf<const T extends readonly [FaultDefinition, ...FaultDefinition[]]>(faults: T) {
  return z.discriminatedUnion('action', faults.map((f) => f.schema) as unknown as SchemasOf<T>);
}
