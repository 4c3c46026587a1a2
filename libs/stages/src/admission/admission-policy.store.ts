import {
  describeZodError,
  type AdmissionPolicyState,
  type BusyThresholdEntry,
  type BusyThresholdList,
  type BusyThresholdsAnnouncement,
  type BusyThresholdUpdate,
  type SetAdmissionPolicy,
} from '@sluice/contracts';
import {
  ADMISSION_POLICY_NAMES,
  ADMISSION_POLICY_PARAMS,
  AdmissionChain,
  BusyThresholdBook,
  chainNames,
  chainProblem,
  createAdmissionRegistry,
  type AdmissionPolicyName,
} from '@sluice/policies';

type Params = Record<string, unknown>;

/** A control request that cannot be applied; the message says what to fix. */
export class ControlRefusal extends Error {
  override readonly name = 'ControlRefusal';
}

const BUSY = 'busy-threshold' satisfies AdmissionPolicyName;

/**
 * The admission chain (one policy or several, checked in order) and every policy's parameters.
 * Parameters start from config (`admission.policies`); a change merges over them, is validated by
 * the policy's own schema and replaces that policy's instance at once (a new token bucket starts
 * full). The busy thresholds are also kept as a `BusyThresholdBook`, stamped with the time of
 * their last change, which the stage announces to the routers.
 */
export class AdmissionPolicyStore {
  private readonly registry = createAdmissionRegistry();
  private readonly params: Record<string, Params>;
  private names: AdmissionPolicyName[];
  private active: AdmissionChain;
  private readonly busy: BusyThresholdBook;

  constructor(
    initial: { readonly policy: readonly AdmissionPolicyName[]; readonly policies: Readonly<Record<string, Readonly<Params>>> },
    private readonly models: readonly string[],
  ) {
    this.params = Object.fromEntries(ADMISSION_POLICY_NAMES.map((name) => [name, { ...(initial.policies[name] ?? {}) }]));
    this.names = [...initial.policy];
    this.active = this.build(this.names);
    this.busy = new BusyThresholdBook(this.params[BUSY] ?? {});
  }

  get chain(): AdmissionChain {
    return this.active;
  }

  /**
   * `policy` is the chain, comma-joined; `params` are the only check's parameters, or, for a chain
   * of several, each check's under its name (the keys `sluice admission set` takes: `token-bucket.capacity`).
   */
  state(): AdmissionPolicyState {
    const params = this.names.length === 1 ? (this.params[this.names[0]!] ?? {}) : Object.fromEntries(this.names.map((name) => [name, this.params[name] ?? {}]));
    return { policy: this.names.join(','), params };
  }

  /**
   * Switches the chain and/or merges parameters; throws ControlRefusal naming the bad field. A
   * top-level key of `params` that names a policy holds that policy's parameters (in the chain or
   * not); any other key is a parameter of the chain's only check. Nothing changes unless all of it
   * is valid.
   */
  set(change: SetAdmissionPolicy, nowUs: number): AdmissionPolicyState {
    const names = change.policy === undefined ? this.names : parseChain(change.policy);
    const byPolicy: Record<string, Params> = {};
    const loose: Params = {};
    for (const [key, value] of Object.entries(change.params)) {
      if (isPolicyName(key)) {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ControlRefusal(`params.${key}: the parameters of ${key} are an object (${key}.<param>=<value>)`);
        byPolicy[key] = value as Params;
      } else loose[key] = value;
    }
    if (Object.keys(loose).length > 0) {
      if (names.length !== 1) {
        const key = Object.keys(loose)[0]!;
        const owner = names.find((name) => key in (this.params[name] ?? {})) ?? names[0];
        throw new ControlRefusal(`params.${key}: the chain has ${names.length} checks (${names.join(', ')}): name the check, e.g. ${owner}.${key}=…`);
      }
      byPolicy[names[0]!] = { ...byPolicy[names[0]!], ...loose };
    }
    const merged: Record<string, Params> = {};
    for (const [name, params] of Object.entries(byPolicy)) {
      // Errors name the key as it was given: `params.capacity` for the only check's, `params.token-bucket.capacity` otherwise.
      const prefix = name in change.params ? `params.${name}` : 'params';
      merged[name] = this.validated(name as AdmissionPolicyName, { ...this.params[name], ...params }, prefix);
    }
    Object.assign(this.params, merged);
    if (merged[BUSY]) this.busy.replace(this.params[BUSY]!, nowUs);
    // A check whose parameters the change sets starts afresh (a new token bucket starts full); the others keep their state.
    this.names = names;
    this.active = this.build(names, this.active, new Set(Object.keys(merged)));
    return this.state();
  }

  /** Dynamo's `GET /busy_threshold`: every configured model with the thresholds in effect for it. */
  busyThresholds(): BusyThresholdList {
    return { thresholds: this.models.map((model) => this.busyEntry(model)) };
  }

  /**
   * Dynamo's `POST /busy_threshold`: sets (number) or clears (null) one model's thresholds; an
   * absent field keeps its value. Clearing writes an explicit null into the model's override, so
   * a top-level value from config does not stay in effect behind it.
   */
  setBusyThreshold(update: BusyThresholdUpdate, nowUs: number): BusyThresholdEntry {
    if (!this.models.includes(update.model)) throw new ControlRefusal(`model: unknown model "${update.model}"; allowed: ${this.models.join(', ')}`);
    const current = this.params[BUSY] ?? {};
    const perModel = { ...((current.models as Record<string, Params> | undefined) ?? {}) };
    const entry: Params = { ...perModel[update.model] };
    if (update.active_decode_blocks_threshold !== undefined) entry.activeDecodeBlocksThreshold = update.active_decode_blocks_threshold;
    if (update.active_prefill_tokens_threshold !== undefined) entry.activePrefillTokensThreshold = update.active_prefill_tokens_threshold;
    perModel[update.model] = entry;
    this.params[BUSY] = this.validated(BUSY, { ...current, models: perModel });
    this.busy.replace(this.params[BUSY], nowUs);
    this.active = this.build(this.names, this.active, new Set([BUSY]));
    return this.busyEntry(update.model);
  }

  /** What the stage announces: the busy thresholds and when they last changed. */
  busyAnnouncement(): BusyThresholdsAnnouncement {
    return this.busy.announcement();
  }

  /** A peer's newer busy thresholds (a change this replica missed, or made before it started). Says whether they were taken. */
  adoptBusyThresholds(announcement: BusyThresholdsAnnouncement): boolean {
    if (!this.busy.adopt(announcement)) return false;
    this.params[BUSY] = this.validated(BUSY, { ...announcement.settings });
    this.active = this.build(this.names, this.active, new Set([BUSY]));
    return true;
  }

  private busyEntry(model: string): BusyThresholdEntry {
    const t = this.busy.thresholdsFor(model);
    return {
      model,
      active_decode_blocks_threshold: t.activeDecodeBlocksThreshold ?? null,
      active_prefill_tokens_threshold: t.activePrefillTokensThreshold ?? null,
    };
  }

  /** The chain's instances: kept from `previous` for checks whose parameters did not change. */
  private build(names: readonly AdmissionPolicyName[], previous?: AdmissionChain, changed: ReadonlySet<string> = new Set()): AdmissionChain {
    const kept = new Map(previous?.checks.map((c) => [c.name, c.policy]));
    return new AdmissionChain(
      names.map((name) => ({ name, policy: (!changed.has(name) && kept.get(name)) || this.registry.create(name, this.params[name]) })),
    );
  }

  /** A policy's new parameters, validated, with their defaults filled in. */
  private validated(name: AdmissionPolicyName, params: Params, prefix = `params.${name}`): Params {
    const parsed = ADMISSION_POLICY_PARAMS[name].safeParse(params);
    if (!parsed.success) throw new ControlRefusal(describeZodError(parsed.error, prefix).join('; '));
    return parsed.data;
  }
}

/** A chain from a control message: one name, a comma-separated list or a list. */
function parseChain(policy: string | readonly string[]): AdmissionPolicyName[] {
  const names = chainNames(policy);
  const problem = chainProblem(names);
  if (problem) throw new ControlRefusal(`policy${problem.index === undefined || typeof policy === 'string' ? '' : `[${problem.index}]`}: ${problem.message}`);
  return names as AdmissionPolicyName[];
}

function isPolicyName(name: string): name is AdmissionPolicyName {
  return (ADMISSION_POLICY_NAMES as readonly string[]).includes(name);
}
