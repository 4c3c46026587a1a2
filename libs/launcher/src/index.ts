export { SERVICE_NAMES, SERVICE_CONFIG_KEYS, servicesOf, type ServiceName } from './services.js';
export { ClusterStartError, ChosenPortTakenError } from './cluster-errors.js';
export { isPidAlive } from './process.js';
export { startLocalCluster, waitForPidExit, type LocalClusterOptions, type LocalCluster } from './local-cluster.js';
export type { NatsNode, NatsRestartEvent } from './cluster-nats.js';
export type { ClusterProcess, ProcessState, RestartEvent, ServiceExit, ServiceInfo } from './supervisor.js';
export { DEFAULT_RESTART_POLICY, restartDelayMs, decideRestart, type RestartPolicy, type RestartDecision, type RestartHistory } from './backoff.js';
export { workerProcessName } from './process-plan.js';
export { SERVICE_NODE_FLAGS } from './service-node-flags.js';
export {
  DEFAULT_NATS_IMAGE,
  NATS_INSTALL_HINT,
  NatsUnavailableError,
  findNatsServer,
  parseNatsServers,
  startNats,
  type NatsKind,
  type NatsServerHandle,
  type StartNatsOptions,
} from './nats-server.js';
export { canConnect, natsAnswers, freePort, freePorts, connectHost, isLoopbackHost, urlHostPort } from './net.js';
export { docker, dockerCliAvailable, type DockerResult } from './docker.js';
export { REPO_ROOT, FREE_PORT_ARGS, FAST_DETECTION_ARGS } from './repo-root.js';
export { warmUp, WARM_UP_FAIRNESS_ID, type WarmUpOptions, type WarmUpResult } from './warm-up.js';
export * from './nats-auth.js';
export * from './nats-certificates.js';
