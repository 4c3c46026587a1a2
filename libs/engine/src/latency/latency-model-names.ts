import { BLACKBOX } from './blackbox.model.js';
import { TRAINED_PHYSICS } from './trained-physics.model.js';

/**
 * Every built-in latency model, by the name a profile's `latencyModel` uses. Its own file so that
 * the profile schema (which lists the names) and the registry (which builds a model from a
 * profile) both depend on it and not on each other.
 */
export const LATENCY_MODEL_NAMES = [BLACKBOX, TRAINED_PHYSICS] as const;
export type LatencyModelName = (typeof LATENCY_MODEL_NAMES)[number];
