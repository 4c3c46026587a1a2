import { micros, type Micros } from '@sluice/contracts';
import type { AdmissionStage } from '@sluice/stages';
import type { Flight } from './flight.js';
import type { TwinNetwork } from './network.js';
import type { QueueGroup } from './queue-group.js';

/**
 * Admission replicas count one another from their presence events, and a token bucket holds 1/N
 * of its capacity and refill (libs/stages' ReplicaSet). As live, each replica says `up` when it
 * starts and beats every `admission.heartbeatIntervalMs`, and every replica hears every one, its
 * own included: so each counts N from the first request on, and keeps counting N past the
 * heartbeat timeout (a replica that stopped hearing the others would take the whole budget). The
 * twin's stage processes never die, so N never changes. A beat is a timer of its sender: a pause
 * holds it, and it fires once when the pause ends. With one replica nothing is sent: it counts 1
 * either way, and the run stays the run it was.
 */
export function announceAdmissionReplicas(network: TwinNetwork, admission: QueueGroup<AdmissionStage<Flight>>, startUs: Micros, heartbeatIntervalUs: number): void {
  const replicas = admission.replicas;
  if (replicas.length === 1) return;
  const processIds = replicas.map((_, i) => `admission-${i}`);
  const tell = (type: 'up' | 'heartbeat') => {
    for (const replica of replicas) for (const processId of processIds) replica.onPresence({ processId, type }, network.nowUs);
  };
  tell('up');
  // From when each beat really ran, as a live interval timer goes on (no catching up after a pause).
  const beat = (atUs: Micros): void =>
    network.periodic('heartbeat', atUs, () =>
      network.gates.admission.timer(() => {
        tell('heartbeat');
        beat(micros(network.queue.nowUs + heartbeatIntervalUs));
      }),
    );
  beat(micros(startUs + heartbeatIntervalUs));
}
