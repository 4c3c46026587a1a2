import type { LatencyProfile } from '../profile.js';
import { BLACKBOX, createBlackboxModel } from './blackbox.model.js';
import type { LatencyModel } from './latency-model.js';

/** Every built-in latency model, by the name a profile's `latencyModel` uses. */
export const LATENCY_MODEL_NAMES = [BLACKBOX] as const;
export type LatencyModelName = (typeof LATENCY_MODEL_NAMES)[number];

export class UnknownLatencyModelError extends Error {
  override readonly name = 'UnknownLatencyModelError';
  constructor(requested: string) {
    super(`unknown latency model "${requested}"; allowed: ${LATENCY_MODEL_NAMES.join(', ')}`);
  }
}

/** A model is a name plus a factory over the profile's coefficients; the table is read-only. */
const FACTORIES: Readonly<Record<LatencyModelName, (profile: LatencyProfile) => LatencyModel>> = {
  [BLACKBOX]: (profile) => createBlackboxModel(profile),
};

const isKnown = (name: string): name is LatencyModelName => Object.hasOwn(FACTORIES, name);

export function createLatencyModel(name: string, profile: LatencyProfile): LatencyModel {
  if (!isKnown(name)) throw new UnknownLatencyModelError(name);
  return FACTORIES[name](profile);
}
