/**
 * A plugin is a type name plus a factory. A registry is an instance (a Nest provider in the
 * services, a plain object in the twin and in tests), never a global map.
 *
 * `Deps` is what a family's factories are given besides their parameters, the same for every
 * plugin of the family (routing policies: the seeded random source and the tie-break). Families
 * without any leave it `void`, and their `create` takes no third argument.
 */
export type Factory<P, Params, Deps = void> = (params: Params, deps: Deps) => P;

export class UnknownPolicyError extends Error {
  override readonly name = 'UnknownPolicyError';
  constructor(kind: string, requested: string, known: readonly string[]) {
    super(`unknown ${kind} "${requested}"; allowed: ${known.join(', ')}`);
  }
}

export class PolicyRegistry<P, Params = unknown, Deps = void> {
  private readonly factories = new Map<string, Factory<P, Params, Deps>>();

  constructor(private readonly kind: string) {}

  register(name: string, factory: Factory<P, Params, Deps>): this {
    if (this.factories.has(name)) throw new Error(`${this.kind} "${name}" is registered twice`);
    this.factories.set(name, factory);
    return this;
  }

  names(): string[] {
    return [...this.factories.keys()];
  }

  create(name: string, params: Params, deps: Deps): P {
    const factory = this.factories.get(name);
    if (!factory) throw new UnknownPolicyError(this.kind, name, this.names());
    return factory(params, deps);
  }
}
