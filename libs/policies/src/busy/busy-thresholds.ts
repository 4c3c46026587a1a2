import { BusyThresholdSettingsSchema, type BusyThresholdSettings, type BusyThresholdsAnnouncement } from '@sluice/contracts';
import type { ClusterView, InstanceView } from '../cluster-view.js';

/**
 * Dynamo's busy detection, shared by the busy-threshold admission check and the routing stage's
 * filter (docs/behaviour.md §2 and §4). Sources, ai-dynamo/dynamo:
 * `lib/llm/src/discovery/worker_monitor.rs` @ 00220774a0cccb802e71d4e107d0ad6357cbe0fa
 * (`is_overloaded`: an unset threshold is skipped; a rank is busy past either threshold; a worker
 * only when all its ranks are) and `lib/runtime/src/pipeline/network/egress/push_router.rs` @
 * 020ac7fc2fd8cfcbacb6b1c8bc05d81cff19ed2c (round-robin, random, power-of-two and least-loaded pick
 * among `free_ids()` only; `empty_free_pool_error`: "All workers are busy" when instances exist but
 * none is free, "no instances found" when none exists).
 */

/** The thresholds in effect for one model; an absent field is not checked. */
export interface BusyThresholds {
  readonly activeDecodeBlocksThreshold?: number;
  readonly activePrefillTokensThreshold?: number;
}

/**
 * The thresholds in effect for one model: its override where it sets a field (null: that check is
 * off for this model), the top-level value otherwise.
 */
export function busyThresholdsFor(settings: BusyThresholdSettings, model: string): BusyThresholds {
  const override = settings.models && Object.hasOwn(settings.models, model) ? settings.models[model] : undefined;
  const decode = override?.activeDecodeBlocksThreshold !== undefined ? override.activeDecodeBlocksThreshold : settings.activeDecodeBlocksThreshold;
  const prefill = override?.activePrefillTokensThreshold !== undefined ? override.activePrefillTokensThreshold : settings.activePrefillTokensThreshold;
  return {
    ...(decode !== undefined && decode !== null && { activeDecodeBlocksThreshold: decode }),
    ...(prefill !== undefined && prefill !== null && { activePrefillTokensThreshold: prefill }),
  };
}

/** Whether any check is on. */
export function anyBusyThreshold(t: BusyThresholds): boolean {
  return t.activeDecodeBlocksThreshold !== undefined || t.activePrefillTokensThreshold !== undefined;
}

/** An instance (one data-parallel rank) is busy past either threshold that is set. */
export function isInstanceBusy(instance: InstanceView, t: BusyThresholds): boolean {
  const decode = t.activeDecodeBlocksThreshold;
  const prefill = t.activePrefillTokensThreshold;
  return (
    (decode !== undefined && instance.totalKvBlocks > 0 && instance.activeDecodeBlocks / instance.totalKvBlocks > decode) ||
    (prefill !== undefined && instance.activePrefillTokens > prefill)
  );
}

/** What the routing filter found for one request's model. */
export interface FreeInstances {
  /** The view with the model's busy instances left out (instances of other models untouched). */
  readonly view: ClusterView;
  /** Instances of the model in the view, and how many of them are busy. */
  readonly total: number;
  readonly busy: number;
}

/**
 * The routing stage's candidates (Dynamo's `free_ids`): the model's instances that are not busy.
 * sluice's router picks a rank itself, where Dynamo's picks a worker and the worker its rank; a
 * busy rank is left out, so "no instance free" is exactly "every worker busy" (a worker is busy
 * only when all of its ranks are).
 */
export function freeInstances(view: ClusterView, model: string, t: BusyThresholds): FreeInstances {
  if (!anyBusyThreshold(t)) return { view, total: 0, busy: 0 };
  let total = 0;
  let busy = 0;
  const instances = view.instances.filter((instance) => {
    if (instance.model !== model) return true;
    total++;
    if (!isInstanceBusy(instance, t)) return true;
    busy++;
    return false;
  });
  return { view: busy === 0 ? view : { ...view, instances }, total, busy };
}

/**
 * The busy thresholds a stage applies, as the newest announcement it has heard set them
 * (`changedAtUs`; 0 = as configured). Admission replicas and router replicas each keep one.
 */
export class BusyThresholdBook {
  private current: BusyThresholdSettings;
  private changedAtUs: number;
  /** Per-model thresholds, computed once per change (the router reads them per request). */
  private readonly byModel = new Map<string, BusyThresholds>();

  constructor(initial: BusyThresholdSettings = {}, changedAtUs = 0) {
    this.current = BusyThresholdSettingsSchema.parse(initial);
    this.changedAtUs = changedAtUs;
  }

  get settings(): BusyThresholdSettings {
    return this.current;
  }

  announcement(): BusyThresholdsAnnouncement {
    return { settings: this.current, changedAtUs: this.changedAtUs };
  }

  /**
   * Takes an announcement newer than what it holds; says whether the thresholds changed. Replicas
   * that applied one change each stamp it with their own clock, so the same settings come back a
   * few µs newer: the newer time is kept, and that is no change.
   */
  adopt(announcement: BusyThresholdsAnnouncement): boolean {
    if (announcement.changedAtUs <= this.changedAtUs) return false;
    const same = JSON.stringify(BusyThresholdSettingsSchema.parse(announcement.settings)) === JSON.stringify(this.current);
    this.replace(announcement.settings, announcement.changedAtUs);
    return !same;
  }

  /** A change made here at `atUs` (a control verb). */
  replace(settings: BusyThresholdSettings, atUs: number): void {
    this.current = BusyThresholdSettingsSchema.parse(settings);
    // Never backwards: a clock that stepped back must not let an older announcement win.
    this.changedAtUs = Math.max(atUs, this.changedAtUs + 1);
    this.byModel.clear();
  }

  thresholdsFor(model: string): BusyThresholds {
    let t = this.byModel.get(model);
    if (!t) this.byModel.set(model, (t = busyThresholdsFor(this.current, model)));
    return t;
  }
}

/** The busy thresholds a config sets (`admission.policies.busy-threshold`), for a stage that starts from them. */
export function configuredBusyThresholds(admissionPolicies: Readonly<Record<string, unknown>>): BusyThresholdSettings {
  return BusyThresholdSettingsSchema.parse(admissionPolicies['busy-threshold'] ?? {});
}
