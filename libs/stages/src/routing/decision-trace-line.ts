import { micros, millisFromMicros, type DecisionTraceLine, type Micros, type TracedCandidate } from '@sluice/contracts';
import type { ClusterView, InstanceView, RoutingDecision } from '@sluice/policies';
import type { PdPlacementInfo } from './routing.effects.js';

/** What a decision trace names the request by (the live router's InferenceRequest and the twin's flight both fit). */
export interface TracedRequest {
  readonly id: string;
  readonly attempt: number;
  readonly model: string;
}

/** JSON has no NaN or Infinity: the trace writes null for them. */
const finite = (value: number): number | null => (Number.isFinite(value) ? value : null);

/**
 * One routing decision as a decision-trace line (contracts' `DecisionTraceLine`), built from what
 * the routing core hands its effects' `decided`: the live router and the twin call this one
 * function, so their traces differ only where their decisions do. `k` is `router.counterfactualK`,
 * the candidates the router's span keeps; the signals are the view's, as the span's are.
 */
export function decisionTraceLine(
  request: TracedRequest,
  policy: string,
  decision: RoutingDecision | null,
  view: ClusterView,
  k: number,
  atUs: Micros,
  pd?: PdPlacementInfo,
): DecisionTraceLine {
  const top = decision ? decision.top(k) : [];
  // k scans of the view: k is the span's handful, and a map of the view would cost more per decision.
  const signalsOf = (id: string): InstanceView | undefined => view.instances.find((i) => i.instanceId === id);
  return {
    atUs: micros(atUs),
    requestId: request.id,
    attempt: request.attempt,
    model: request.model,
    policy,
    candidates: view.instances.length,
    instance: decision ? decision.instance.instanceId : null,
    regret: decision ? finite(decision.regret) : null,
    ...(pd && {
      pd: { placement: pd.placement, nonCachedTokens: pd.nonCachedTokens, ...(pd.prefillInstanceId !== undefined && { prefillInstance: pd.prefillInstanceId }) },
    }),
    top: top.map((candidate): TracedCandidate => {
      const signals = signalsOf(candidate.instanceId);
      return {
        instanceId: candidate.instanceId,
        score: finite(candidate.score),
        effectiveLoad: candidate.effectiveLoad,
        ...(candidate.scores && { scores: Object.fromEntries(Object.entries(candidate.scores).map(([scorer, score]) => [scorer, finite(score)])) }),
        signals: {
          queueDepth: signals?.queueDepth ?? 0,
          batchSize: signals?.batchSize ?? 0,
          inFlight: signals?.inFlight ?? 0,
          kvUtilization: signals?.kvUtilization ?? 0,
          snapshotAgeMs: signals && Number.isFinite(signals.snapshotAgeUs) ? millisFromMicros(signals.snapshotAgeUs) : null,
        },
      };
    }),
  };
}
