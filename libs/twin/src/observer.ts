import type { PdPlacementInfo, TracedRequest } from '@sluice/stages';
import type { AdmissionDecision, ClusterView, RoutingDecision } from '@sluice/policies';

/**
 * Decisions the twin's stages report, for a test or a study that needs more than the records
 * (which replica did what, in which order). Live, the same reports become spans and metrics; the
 * twin itself ignores them, so an observer never changes a run.
 */
export interface TwinObserver {
  /** Flow-control replica `replica` released the request to the router at `atUs` (virtual µs). */
  flowReleased?(replica: number, requestId: string, priority: number, atUs: number): void;
  /** An admission replica decided on the request at `atUs`: the policy's decision with its inputs (a live span's attributes). */
  admissionDecided?(requestId: string, policy: string, decision: AdmissionDecision, atUs: number): void;
  /**
   * A router replica decided where the request goes (null: nothing could take it), from `view`, at
   * `atUs`: what the live router puts on its decision's span. Read `decision` and `view` before
   * returning: its ranking and the view's instances are built from arrays the core reuses.
   */
  routingDecided?(request: TracedRequest, policy: string, decision: RoutingDecision | null, view: ClusterView, atUs: number, pd?: PdPlacementInfo): void;
}
