import type { BusFaultRule, SetWorkerFaults } from '@sluice/contracts';
import type { ChaosNatsNode, ComposeContainerRef, FaultControls, LiveTarget, LocalNats, NatsServerProcess, ProcessSignal } from '../live-ports.js';
import type { PausableStage, TwinFaultPort } from '../twin-port.js';

/**
 * The specs' implementations of the fault ports: each records the operations a fault's action
 * asks for, in order (`signal worker-1 SIGKILL`, `docker kill id-worker-1`, …), and answers from
 * a small cluster it describes: worker processes worker-0 and worker-1, a 3-node NATS cluster
 * whose node 1 holds the most client connections, four worker instances. What a spec reads is
 * what the fault did to the world, as the stage cores' specs read their effects ports.
 */
export class PortRecorder {
  readonly calls: string[] = [];
  /** The NATS cluster as the targets list it; a stop marks a node as not running. */
  nodes: ChaosNatsNode[] = [0, 1, 2].map((index) => ({ index, name: `nats-${index}`, running: true, connections: [2, 5, 1][index] }));
  readonly workerProcesses = ['worker-0', 'worker-1'];
  readonly instanceIds = ['w-a-r0', 'w-a-r1', 'w-b-r0', 'w-b-r1'];

  /** A local cluster whose NATS runs as `nats` says. */
  local(nats: LocalNats = 'cluster'): LiveTarget {
    return {
      kind: 'local',
      nats,
      signal: (process: string, signal: ProcessSignal) => this.answer(`signal ${process} ${signal}`, 4711),
      restartNats: (downMs: number) => this.answer(`restartNats ${downMs}`, undefined),
      natsNodes: () => Promise.resolve(this.nodes),
      stopNatsNode: (index: number) => this.answer(`stopNatsNode ${index}`, this.setRunning(index, false)),
      startNatsNode: (index: number) => this.answer(`startNatsNode ${index}`, this.setRunning(index, true)),
    };
  }

  /** A Compose project running `natsServers` NATS containers (`nats`, `nats-1`, …); every container is found. */
  compose(natsServers = 3): LiveTarget {
    const container = (name: string): ComposeContainerRef => ({ id: `id-${name}-0123456789abcdef`, name, service: name.startsWith('worker') ? 'worker' : name });
    return {
      kind: 'compose',
      project: 'chaos',
      container: (name: string) => Promise.resolve(container(name)),
      // `docker inspect` of networks answers two; everything else prints nothing.
      docker: (args: readonly string[]) => this.answer(`docker ${args.join(' ')}`, args[0] === 'inspect' ? '{"chaos_default":{"Aliases":["1a2b"]},"chaos_backend":null}' : ''),
      startAgainWhenExited: (c: ComposeContainerRef) => void this.calls.push(`startAgainWhenExited ${c.name}`),
      sleep: (ms: number) => this.answer(`sleep ${ms}`, undefined),
      natsServerCount: () => Promise.resolve(natsServers),
      natsNodes: () => Promise.resolve(natsServers > 1 ? this.nodes : []),
      natsNodeContainer: (index: number) => Promise.resolve(container(index === 0 ? 'nats' : `nats-${index}`)),
    };
  }

  controls(): FaultControls {
    return {
      workerInstances: () => Promise.resolve([...this.instanceIds]),
      setWorkerFaults: (request: SetWorkerFaults) => this.answer(`setWorkerFaults ${JSON.stringify(request)}`, `knobs on ${request.instanceId ?? 'every instance'}`),
      setBusFault: (rule: BusFaultRule) => this.answer(`setBusFault ${JSON.stringify(rule)}`, `rule on ${rule.subject}`),
      clearBusFault: (subject: string) => this.answer(`clearBusFault ${subject}`, `cleared ${subject}`),
    };
  }

  /** The twin: its hops are the submit subjects and the load snapshots, as the real twin's (a stand-in match on those words). */
  twin(): TwinFaultPort {
    const record = <T>(call: string, value: T): T => {
      this.calls.push(call);
      return value;
    };
    return {
      workerProcesses: this.workerProcesses,
      instanceIds: this.instanceIds,
      busRuleReach: (pattern: string) => ({ hops: /submit|load|>/.test(pattern) ? ['router → worker instance'] : [], notCarried: pattern.endsWith('>') ? ['done events'] : [] }),
      killWorkerProcess: (name: string) => record(`killWorkerProcess ${name}`, `${name} killed`),
      terminateWorkerProcess: (name: string) => record(`terminateWorkerProcess ${name}`, `${name} terminated`),
      pauseStage: (stage: PausableStage) => record(`pauseStage ${stage}`, undefined),
      resumeStage: (stage: PausableStage) => record(`resumeStage ${stage}`, 3),
      setInstanceFaults: (instanceId: string, knobs: SetWorkerFaults['faults']) => record(`setInstanceFaults ${instanceId} ${JSON.stringify(knobs)}`, undefined),
      setBusRule: (rule: BusFaultRule) => record(`setBusRule ${JSON.stringify(rule)}`, undefined),
      clearBusRule: (subject: string) => record(`clearBusRule ${subject}`, undefined),
    };
  }

  private answer<T>(call: string, value: T): Promise<T> {
    this.calls.push(call);
    return Promise.resolve(value);
  }

  private setRunning(index: number, running: boolean): NatsServerProcess {
    this.nodes = this.nodes.map((n) => (n.index === index ? { ...n, running, connections: running ? 0 : undefined } : n));
    return { pid: 9000 + index, url: `nats://127.0.0.1:${4222 + index}` };
  }
}
