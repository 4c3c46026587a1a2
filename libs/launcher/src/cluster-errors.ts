import type { ServiceName } from './services.js';

/** A service did not come up: it exited, timed out, or its port is taken. */
export class ClusterStartError extends Error {
  override readonly name: string = 'ClusterStartError';
  /** The process that failed (`worker-1`), when one did. */
  readonly process: string | undefined;

  constructor(
    message: string,
    readonly service?: ServiceName,
    readonly logTail: readonly string[] = [],
    options?: ErrorOptions & { readonly process?: string },
  ) {
    super(message, options);
    this.process = options?.process ?? service;
  }
}

/**
 * A port this launcher picked for a service (port 0 in the config) was bound by another process
 * between the pick and the service's listen: a race with whatever else runs on the machine (other
 * clusters of a parallel test run, outgoing connections taking ephemeral ports), not a fault of
 * the config, so startLocalCluster tries again with fresh ports.
 */
export class ChosenPortTakenError extends ClusterStartError {
  override readonly name: string = 'ChosenPortTakenError';

  constructor(cause: ClusterStartError) {
    super(cause.message, cause.service, cause.logTail, { cause, ...(cause.process !== undefined ? { process: cause.process } : {}) });
  }
}
