import {
  describeZodError,
  type AdmissionPolicyState,
  type BusyThresholdEntry,
  type BusyThresholdList,
  type BusyThresholdUpdate,
  type SetAdmissionPolicy,
} from '@sluice/contracts';
import {
  ADMISSION_POLICY_NAMES,
  ADMISSION_POLICY_PARAMS,
  BusyThresholdParamsSchema,
  busyThresholdsFor,
  createAdmissionRegistry,
  type AdmissionPolicy,
  type AdmissionPolicyName,
} from '@sluice/policies';

type Params = Record<string, unknown>;

/** A control request that cannot be applied; the message says what to fix. */
export class ControlRefusal extends Error {
  override readonly name = 'ControlRefusal';
}

const BUSY = 'busy-threshold' satisfies AdmissionPolicyName;

/**
 * The active admission policy and every policy's parameters. Parameters start from config
 * (`admission.policies`); a change merges over them, is validated by the policy's own schema and
 * replaces the policy instance at once (a new token bucket starts full).
 */
export class AdmissionPolicyStore {
  private readonly registry = createAdmissionRegistry();
  private readonly params: Record<string, Params>;
  private activeName: AdmissionPolicyName;
  private instance: AdmissionPolicy;

  constructor(
    initial: { readonly policy: AdmissionPolicyName; readonly policies: Readonly<Record<string, Readonly<Params>>> },
    private readonly models: readonly string[],
  ) {
    this.params = Object.fromEntries(ADMISSION_POLICY_NAMES.map((name) => [name, { ...(initial.policies[name] ?? {}) }]));
    this.activeName = initial.policy;
    this.instance = this.registry.create(this.activeName, this.params[this.activeName]);
  }

  get policy(): AdmissionPolicy {
    return this.instance;
  }

  state(): AdmissionPolicyState {
    return { policy: this.activeName, params: this.params[this.activeName] ?? {} };
  }

  /** Switches policy and/or merges parameters; throws ControlRefusal naming the bad field. */
  set(change: SetAdmissionPolicy): AdmissionPolicyState {
    const name = change.policy ?? this.activeName;
    if (!isPolicyName(name)) throw new ControlRefusal(`unknown admission policy "${name}"; allowed: ${ADMISSION_POLICY_NAMES.join(', ')}`);
    this.replace(name, { ...this.params[name], ...change.params });
    this.activeName = name;
    this.instance = this.registry.create(name, this.params[name]);
    return this.state();
  }

  /** Dynamo's `GET /busy_threshold`: every configured model with the thresholds in effect for it. */
  busyThresholds(): BusyThresholdList {
    return { thresholds: this.models.map((model) => this.busyEntry(model)) };
  }

  /**
   * Dynamo's `POST /busy_threshold`: sets (number) or clears (null) one model's thresholds; an
   * absent field keeps its value. Takes effect on the next decision if busy-threshold is active.
   */
  setBusyThreshold(update: BusyThresholdUpdate): BusyThresholdEntry {
    if (!this.models.includes(update.model)) throw new ControlRefusal(`model: unknown model "${update.model}"; allowed: ${this.models.join(', ')}`);
    const current = this.params[BUSY] ?? {};
    const perModel = { ...((current.models as Record<string, Params> | undefined) ?? {}) };
    const entry: Params = { ...perModel[update.model] };
    const apply = (key: string, value: number | null | undefined) => {
      if (value === null) delete entry[key];
      else if (value !== undefined) entry[key] = value;
    };
    apply('activeDecodeBlocksThreshold', update.active_decode_blocks_threshold);
    apply('activePrefillTokensThreshold', update.active_prefill_tokens_threshold);
    perModel[update.model] = entry;
    this.replace(BUSY, { ...current, models: perModel });
    if (this.activeName === BUSY) this.instance = this.registry.create(BUSY, this.params[BUSY]);
    return this.busyEntry(update.model);
  }

  private busyEntry(model: string): BusyThresholdEntry {
    const t = busyThresholdsFor(BusyThresholdParamsSchema.parse(this.params[BUSY] ?? {}), model);
    return {
      model,
      active_decode_blocks_threshold: t.activeDecodeBlocksThreshold ?? null,
      active_prefill_tokens_threshold: t.activePrefillTokensThreshold ?? null,
    };
  }

  /** Validates a policy's new parameters and stores them with their defaults filled in. */
  private replace(name: AdmissionPolicyName, params: Params): void {
    const parsed = ADMISSION_POLICY_PARAMS[name].safeParse(params);
    if (!parsed.success) throw new ControlRefusal(describeZodError(parsed.error, 'params').join('; '));
    this.params[name] = parsed.data;
  }
}

function isPolicyName(name: string): name is AdmissionPolicyName {
  return (ADMISSION_POLICY_NAMES as readonly string[]).includes(name);
}
