import { describe, expect, it } from 'vitest';
import { liveRun, whyUnsupported } from '../fault-runs.js';
import { PortRecorder } from '../testing/recording-ports.js';
import { stopNatsNodeFault } from './stop-nats-node.fault.js';

const stop = (extra: object) => stopNatsNodeFault.schema.parse({ atMs: 0, action: 'stop-nats-node', ...extra });

describe('stop-nats-node', () => {
  it('stops the busiest node when it fires, and its undo starts that one, wherever the clients went meanwhile', async () => {
    const r = new PortRecorder();
    const run = liveRun(stopNatsNodeFault, stop({ node: 'busiest', forMs: 50 }), r.local(), r.controls());
    expect(await run.start()).toBe('nats-1 (5 of 8 client connections): nats-server pid 9001 stopped');
    r.nodes = r.nodes.map((n) => (n.index === 1 ? n : { ...n, connections: 9 }));
    expect(await run.undo!()).toBe('nats-1 back: nats-server pid 9001 started on nats://127.0.0.1:4223');
    expect(r.calls).toEqual(['stopNatsNode 1', 'startNatsNode 1']);
  });

  it('stops a node by index, for good without forMs; says why it cannot stop one already stopped or missing', async () => {
    const r = new PortRecorder();
    expect(await liveRun(stopNatsNodeFault, stop({ node: 2 }), r.local(), r.controls()).start()).toBe('nats-2 (1 of 8 client connections): nats-server pid 9002 stopped, for good');
    await expect(liveRun(stopNatsNodeFault, stop({ node: 2 }), r.local(), r.controls()).start()).rejects.toThrow('NATS node nats-2 is already stopped');
    await expect(liveRun(stopNatsNodeFault, stop({ node: 3 }), r.local(), r.controls()).start()).rejects.toThrow('no NATS node 3: the cluster has nats-0, nats-1, nats-2');
    await expect(liveRun(stopNatsNodeFault, stop({ node: 0, forMs: 5 }), r.local(), r.controls()).undo!()).rejects.toThrow('the NATS node was not stopped, so there is none to start');
  });

  it("kills and starts the node's container under compose (`nats` is node 0)", async () => {
    const r = new PortRecorder();
    const run = liveRun(stopNatsNodeFault, stop({ node: 0, forMs: 5 }), r.compose(), r.controls());
    expect(await run.start()).toBe('nats-0 (2 of 8 client connections): docker kill id-nats-0123 (nats)');
    expect(await run.undo!()).toBe('nats-0 back: docker start id-nats-0123 (nats)');
    expect(r.calls).toEqual(['docker kill id-nats-0123456789abcdef', 'docker start id-nats-0123456789abcdef']);
  });

  it('needs a NATS cluster the run can stop a node of, and names how to get one', async () => {
    const r = new PortRecorder();
    const fault = stop({});
    expect(await whyUnsupported(stopNatsNodeFault, fault, r.local('cluster'))).toBeUndefined();
    expect(await whyUnsupported(stopNatsNodeFault, fault, r.local('server'))).toBe("NATS runs as one server: add `nats.clusterSize: 3` to the scenario's cluster (or --nats.clusterSize=3)");
    expect(await whyUnsupported(stopNatsNodeFault, fault, r.local('external'))).toBe('NATS is external (NATS_URL / nats.url): this run cannot stop it');
    expect(await whyUnsupported(stopNatsNodeFault, fault, r.compose(3))).toBeUndefined();
    expect(await whyUnsupported(stopNatsNodeFault, fault, r.compose(1))).toBe('compose project "chaos" runs one NATS server: start it on a NATS cluster with -f docker-compose.yml -f docker-compose.nats-cluster.yml');
    expect(await whyUnsupported(stopNatsNodeFault, fault, r.compose(0))).toBe('compose project "chaos" runs no NATS container (is it up?): start it on a NATS cluster with -f docker-compose.yml -f docker-compose.nats-cluster.yml');
  });
});
