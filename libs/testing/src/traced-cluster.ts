import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

/** A local cluster on free ports whose services export their spans to an OTLP/HTTP receiver of the test's own. */
export interface TracedCluster {
  readonly receiver: OtlpReceiver;
  readonly cluster: LocalCluster;
  /** Stops the cluster, then the receiver. */
  stop(): Promise<void>;
}

/**
 * Starts the receiver, then the cluster (services in parallel) with `configArgs` and the standard
 * OTEL_* variables that export to the receiver, plus `env` (e.g. a sampler).
 */
export async function startTracedCluster(configArgs: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<TracedCluster> {
  const receiver = await startOtlpReceiver();
  try {
    const cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, ...configArgs], env: { ...receiver.exportEnv, ...env }, parallel: true });
    return {
      receiver,
      cluster,
      async stop() {
        await cluster.stop();
        await receiver.close();
      },
    };
  } catch (error) {
    await receiver.close();
    throw error;
  }
}
