import { describe, expect, it } from 'vitest';
import { liveRun, twinPlan, whyUnsupported } from '../fault-runs.js';
import { PortRecorder } from '../testing/recording-ports.js';
import { disconnectFault } from './disconnect.fault.js';

const disconnect = disconnectFault.schema.parse({ atMs: 0, action: 'disconnect', target: 'worker', forMs: 5 });

describe('disconnect', () => {
  it('takes the container off each of its networks, and puts it back on those with its service name as an alias', async () => {
    const r = new PortRecorder();
    const run = liveRun(disconnectFault, disconnect, r.compose(), r.controls());
    expect(await run.start()).toBe('docker network disconnect chaos_default, chaos_backend id-worker-0-');
    expect(await run.undo!()).toBe('docker network connect chaos_default, chaos_backend id-worker-0-');
    const id = 'id-worker-0-0123456789abcdef';
    expect(r.calls).toEqual([
      `docker inspect --format {{json .NetworkSettings.Networks}} ${id}`,
      `docker network disconnect chaos_default ${id}`,
      `docker network disconnect chaos_backend ${id}`,
      `docker network connect --alias worker --alias 1a2b chaos_default ${id}`,
      `docker network connect --alias worker chaos_backend ${id}`,
    ]);
  });

  it('cannot be done on a local cluster, and says so before the run; the twin has no network', async () => {
    const r = new PortRecorder();
    expect(await whyUnsupported(disconnectFault, disconnect, r.local())).toBe('disconnect takes a container off its network: run the scenario with --compose');
    expect(twinPlan(disconnectFault, disconnect, r.twin())).toEqual({ target: 'worker', notModelled: 'disconnect of worker: the twin has no network to partition' });
  });
});
