/**
 * A plugin is a type name plus a factory. A registry is an instance (a Nest provider in the
 * services, a plain object in the twin and in tests), never a global map.
 */
export type Factory<P, Params> = (params: Params) => P;

export class UnknownPolicyError extends Error {
  override readonly name = 'UnknownPolicyError';
  constructor(kind: string, requested: string, known: readonly string[]) {
    super(`unknown ${kind} "${requested}"; allowed: ${known.join(', ')}`);
  }
}

export class PolicyRegistry<P, Params = unknown> {
  private readonly factories = new Map<string, Factory<P, Params>>();

  constructor(private readonly kind: string) {}

  register(name: string, factory: Factory<P, Params>): this {
    if (this.factories.has(name)) throw new Error(`${this.kind} "${name}" is registered twice`);
    this.factories.set(name, factory);
    return this;
  }

  names(): string[] {
    return [...this.factories.keys()];
  }

  create(name: string, params: Params): P {
    const factory = this.factories.get(name);
    if (!factory) throw new UnknownPolicyError(this.kind, name, this.names());
    return factory(params);
  }
}
