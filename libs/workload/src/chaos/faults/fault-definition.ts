import type { z } from 'zod';
import type { ComposeFaultPort, FaultControls, LocalFaultPort } from './live-ports.js';
import type { TwinFaultPort } from './twin-port.js';

/**
 * A fault is a type name (its `action` word in a scenario) plus what it is on each side: its
 * schema, the words its report line names it by, its action on a local cluster, under compose and
 * in the twin (or why it has none there). One folder per fault holds its definition; the registry
 * (built-in-faults.ts) lists them, and the scenario schema, the live executor and timeline, the
 * reports and the twin's plan read only this interface.
 */

/** One firing of a fault on a live target: its start and, for a fault that is undone, its undo. Each resolves to what was done. */
export interface LiveFaultRun {
  readonly start: () => Promise<string>;
  /** Undefined for a fault nothing undoes (a kill: the supervisor restarts the process). */
  readonly undo?: () => Promise<string>;
}

/** What a live action runs on: the target's port and the control messages every target can send. */
export interface LiveContext<P> {
  readonly port: P;
  readonly controls: FaultControls;
}

/** A fault's action on one kind of live target. */
export interface LiveFaultAction<F, P> {
  /** Why this target cannot do the fault (checked before the run starts); undefined when it can. */
  whyNot?(fault: F, port: P): Promise<string | undefined>;
  /**
   * A run of the fault; what the start chose (the instances, the NATS node, the networks) stays in
   * the run, so its undo reaches the same ones.
   */
  run(fault: F, on: LiveContext<P>): LiveFaultRun;
}

/** A kind of target that can never do the fault, and why (said before the run starts). */
export interface Unsupported {
  readonly unsupported: string;
}

/** One firing of a fault in the twin; each returns what was done. */
export interface TwinFaultRun {
  readonly start: () => string;
  readonly undo?: () => string;
}

/** A fault read against the twin: what it hits, and its run or why the twin leaves it out. */
export type TwinPlan =
  | { readonly target: string; readonly run: TwinFaultRun; readonly notModelled?: undefined }
  | { readonly target: string; readonly notModelled: string; readonly run?: undefined };

export interface TwinFaultAction<F> {
  /** Reads the fault against what the twin has (its processes, instances, carried subjects). */
  plan(fault: F, twin: TwinFaultPort): TwinPlan;
}

/** A fault the twin cannot model at all: why, in the words of its report line (`not modelled in the twin: …`). */
export interface NotModelled<F> {
  notModelled(fault: F): string;
}

/** What every fault has: the action word, when it fires, an optional note. */
interface FaultBase {
  readonly action: string;
  readonly atMs: number;
  readonly note?: string | undefined;
}

/** A fault's schema: an object (so it can join the scenario's discriminated union) with the fields every fault has. */
export type FaultObjectSchema = z.ZodObject & z.ZodType<FaultBase, FaultBase>;

/** A fault of any kind, as the code that does not look at which fault it is holds it. */
export type AnyFault = z.output<FaultObjectSchema>;

/**
 * One fault. `target`, `whyNot`, `run`, `plan` and `notModelled` are declared as methods, whose
 * parameters TypeScript compares both ways: so the definition of one fault, typed by its own
 * schema, is also a `FaultDefinition` of any fault, which is how the registry and the generic
 * code hold it (they only ever hand a definition a fault of its own action).
 */
export interface FaultDefinition<S extends FaultObjectSchema = FaultObjectSchema> {
  /** Its type name: the `action` word a scenario gives. */
  readonly action: z.output<S>['action'];
  /** Its fields, `action` included: one member of the scenario's discriminated union. */
  readonly schema: S;
  /** Valid faults that together name every field the schema has (the conformance suite parses each; docs can show them). */
  readonly examples: readonly [z.input<S>, ...z.input<S>[]];
  /** The process, node, instances or subject it hits, in a few words (the report's `target`). */
  target(fault: z.output<S>): string;
  /**
   * True when its start returns only once the fault is over (a NATS restart takes its down time):
   * it has no undo step, and it ends when its start is done. Otherwise a fault with `forMs` is
   * undone by a step of its own.
   */
  readonly endsWithItsStart?: boolean;
  /** True when it is injected by control messages (`FaultControls`): a live run connects to NATS for it. */
  readonly byMessage?: boolean;
  readonly local: LiveFaultAction<z.output<S>, LocalFaultPort> | Unsupported;
  readonly compose: LiveFaultAction<z.output<S>, ComposeFaultPort> | Unsupported;
  readonly twin: TwinFaultAction<z.output<S>> | NotModelled<z.output<S>>;
}

/** Infers a definition's types from its schema (the identity at run time). */
export function defineFault<S extends FaultObjectSchema>(definition: FaultDefinition<S>): FaultDefinition<S> {
  return definition;
}

/** A fault could not be done as asked (no such node, nothing to undo): the report shows the message. */
export class FaultActionError extends Error {
  override readonly name = 'FaultActionError';
}
