export {
  SERVICE_NAMES,
  SERVICE_CONFIG_KEYS,
  ClusterStartError,
  ChosenPortTakenError,
  startLocalCluster,
  waitForPidExit,
  type ServiceName,
  type ServiceInfo,
  type ServiceExit,
  type LocalClusterOptions,
  type LocalCluster,
} from './local-cluster.js';
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
export { canConnect, natsAnswers, freePort, freePorts, connectHost, urlHostPort } from './net.js';
export { docker, dockerCliAvailable, type DockerResult } from './docker.js';
export { REPO_ROOT, FREE_PORT_ARGS } from './repo-root.js';
