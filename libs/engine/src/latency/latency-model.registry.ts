import type { LatencyProfile } from '../profile.js';
import { BLACKBOX, createBlackboxModel } from './blackbox.model.js';
import type { LatencyModel } from './latency-model.js';
import { LATENCY_MODEL_NAMES, type LatencyModelName } from './latency-model-names.js';
import { TRAINED_PHYSICS, createTrainedPhysicsModel } from './trained-physics.model.js';

export class UnknownLatencyModelError extends Error {
  override readonly name = 'UnknownLatencyModelError';
  constructor(requested: string) {
    super(`unknown latency model "${requested}"; allowed: ${LATENCY_MODEL_NAMES.join(', ')}`);
  }
}

/** The profile names a model whose coefficients it does not give (the profile schema refuses it first). */
export class MissingCoefficientsError extends Error {
  override readonly name = 'MissingCoefficientsError';
  constructor(model: string, key: string) {
    super(`latency model "${model}" needs its coefficients under "${key}" in the profile`);
  }
}

/** A model is a name plus a factory over the profile's coefficients; the table is read-only. */
const FACTORIES: Readonly<Record<LatencyModelName, (profile: LatencyProfile) => LatencyModel>> = {
  [BLACKBOX]: (profile) => createBlackboxModel(profile),
  [TRAINED_PHYSICS]: (profile) => {
    if (profile.trainedPhysics === undefined) throw new MissingCoefficientsError(TRAINED_PHYSICS, 'trainedPhysics');
    return createTrainedPhysicsModel(profile.trainedPhysics, profile.tp);
  },
};

const isKnown = (name: string): name is LatencyModelName => Object.hasOwn(FACTORIES, name);

export function createLatencyModel(name: string, profile: LatencyProfile): LatencyModel {
  if (!isKnown(name)) throw new UnknownLatencyModelError(name);
  return FACTORIES[name](profile);
}
