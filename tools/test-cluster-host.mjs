// Keeps the integration-shared project's cluster (libs/testing/src/shared-cluster.ts) in a process
// of its own: starts a local cluster from the build with the settings given as a JSON array,
// prints where it is as one JSON line, and stops it when its stdin closes (the global set-up's
// teardown, or the test run dying) or on SIGTERM.
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster } from '@sluice/launcher';

const settings = JSON.parse(process.argv[2] ?? '[]');
const cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, ...settings], parallel: true, readyTimeoutMs: 80_000 });

let stopping;
const stop = () => (stopping ??= cluster.stop().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();

const { worker } = cluster.config;
process.stdout.write(
  `${JSON.stringify({
    gatewayUrl: cluster.gatewayUrl,
    natsUrl: cluster.natsUrl,
    services: cluster.services.map((s) => ({ name: s.name, process: s.process, url: s.url })),
    instanceUrls: worker.http.enabled ? Array.from({ length: worker.instances }, (_, rank) => `http://127.0.0.1:${worker.http.basePort + rank}`) : [],
  })}\n`,
);
