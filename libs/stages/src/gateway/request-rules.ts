import { priorityOf, type SloClass } from '@sluice/contracts';

/**
 * A request's priority (docs/behaviour.md §3 and §5): the priority of the InferenceObjective it
 * names (an unknown name gets 0, as in the Endpoint Picker); naming none, its SLO class's.
 */
export function priorityFor(objective: string | undefined, sloClass: SloClass, objectives: ReadonlyMap<string, number>): number {
  if (objective === undefined) return priorityOf(sloClass);
  return objectives.get(objective) ?? 0;
}

/**
 * Why the gateway answers 400 at once rather than passing the request on: its prompt and output
 * cannot fit the model's context, so no instance could ever serve it. Undefined when it fits.
 */
export function exceedsContext(inputTokens: number, maxTokens: number, model: { readonly name: string; readonly maxModelLen: number }): string | undefined {
  if (inputTokens + maxTokens <= model.maxModelLen) return undefined;
  return `prompt (${inputTokens} tokens) + max_tokens (${maxTokens}) exceeds the context of ${model.name} (${model.maxModelLen} tokens)`;
}
