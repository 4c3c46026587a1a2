import { UnknownFitnessTermError, parseFitnessWeights, type FitnessWeights } from '@sluice/metrics';

/** `--fitness-weights` read, or its problem added to `problems` (a usage error naming the option). */
export function fitnessWeightsOf(text: string | undefined, problems: string[]): FitnessWeights | undefined {
  if (text === undefined) return undefined;
  try {
    return parseFitnessWeights(text);
  } catch (error) {
    if (!(error instanceof RangeError || error instanceof UnknownFitnessTermError)) throw error;
    problems.push(`--fitness-weights: ${error.message}`);
    return undefined;
  }
}
