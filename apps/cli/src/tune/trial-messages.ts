import type { RunReport } from '@sluice/metrics';
import type { TwinTrialJob } from './twin-trial.js';

/** What a trial worker thread is started with. */
export interface TrialWorkerData {
  readonly workloadFile: string;
  /** The environment config is read with (SLUICE_* keys), as the command saw it. */
  readonly env: NodeJS.ProcessEnv;
}

export interface TrialRequest {
  readonly id: number;
  readonly job: TwinTrialJob;
}

export type TrialReply =
  | { readonly id: number; readonly ok: true; readonly summary: RunReport; readonly durationMs: number }
  | { readonly id: number; readonly ok: false; readonly message: string };
