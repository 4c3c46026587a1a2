/**
 * The worker process's own readiness, beyond the bus's: with `worker.loadModelAtStart` (a pod an
 * autoscaler created) it is not ready while its instances still load their model, so the
 * platform counts it ready when it can serve. The worker service says how to tell once it has its
 * instances; until then the process is not serving anyway (/readyz answers after start-up).
 */
export class WorkerReadiness {
  private check: () => string | null = () => null;

  follow(check: () => string | null): void {
    this.check = check;
  }

  readonly readiness = (): string | null => this.check();
}
