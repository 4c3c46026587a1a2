import { describe, expect, it } from 'vitest';
import { liveRun, whyUnsupported } from '../fault-runs.js';
import { PortRecorder } from '../testing/recording-ports.js';
import { restartNatsFault } from './restart-nats.fault.js';

const restart = restartNatsFault.schema.parse({ atMs: 0, action: 'restart-nats', forMs: 700 });

describe('restart-nats', () => {
  it('is one step: NATS down for forMs and up again, locally and under compose', async () => {
    const r = new PortRecorder();
    const local = liveRun(restartNatsFault, restart, r.local('server'), r.controls());
    expect(await local.start()).toBe('NATS down for 700 ms, then up again');
    expect(local.undo).toBeUndefined();
    expect(await liveRun(restartNatsFault, restart, r.compose(1), r.controls()).start()).toBe('NATS down for 700 ms, then up again');
    expect(r.calls).toEqual(['restartNats 700', 'docker stop --time 0 id-nats-0123456789abcdef', 'sleep 700', 'docker start id-nats-0123456789abcdef']);
    expect(restartNatsFault.endsWithItsStart).toBe(true);
  });

  it('needs a NATS server the local cluster started, and not a cluster of them', async () => {
    const r = new PortRecorder();
    expect(await whyUnsupported(restartNatsFault, restart, r.local('server'))).toBeUndefined();
    expect(await whyUnsupported(restartNatsFault, restart, r.local('external'))).toBe('NATS is external (NATS_URL / nats.url): this run cannot stop it');
    expect(await whyUnsupported(restartNatsFault, restart, r.local('cluster'))).toBe('NATS runs as a cluster (nats.clusterSize): restart one node with stop-nats-node and forMs');
  });
});
