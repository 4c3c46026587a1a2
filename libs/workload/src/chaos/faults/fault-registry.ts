import type { FaultDefinition } from './fault-definition.js';

export class UnknownFaultError extends Error {
  override readonly name = 'UnknownFaultError';
  constructor(action: string, known: readonly string[]) {
    super(`unknown fault "${action}"; allowed: ${known.join(', ')}`);
  }
}

/**
 * The faults a run knows, by action word. An instance (each run and each test builds its own with
 * createFaultRegistry()), never a global map: a spec that registers a fault of its own changes no
 * other run.
 */
export class FaultRegistry {
  private readonly byAction = new Map<string, FaultDefinition>();

  register(definition: FaultDefinition): this {
    if (this.byAction.has(definition.action)) throw new Error(`fault "${definition.action}" is registered twice`);
    this.byAction.set(definition.action, definition);
    return this;
  }

  /** Every action word, in registration order. */
  actions(): string[] {
    return [...this.byAction.keys()];
  }

  get(action: string): FaultDefinition {
    const definition = this.byAction.get(action);
    if (!definition) throw new UnknownFaultError(action, this.actions());
    return definition;
  }

  /** The definition of a fault a scenario gave. */
  of(fault: { readonly action: string }): FaultDefinition {
    return this.get(fault.action);
  }
}
