import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderKustomization, type K8sObject } from './render-kustomization.js';

/**
 * Every workload of every overlay is admitted by Pod Security "restricted"
 * (kubernetes.io/docs/concepts/security/pod-security-standards, the restricted profile's controls),
 * and has what an admin expects of a pod: memory requested and limited, a startup probe. Checked
 * on the rendered objects, so a patch in an overlay cannot undo it unseen.
 */
const OVERLAYS = ['infra/k8s/overlays/dev', 'infra/k8s/overlays/gateway-api', 'infra/k8s/overlays/autoscaling-keda', 'infra/k8s/overlays/autoscaling-hpa'];
const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'];
/** The volume types "restricted" allows. */
const ALLOWED_VOLUMES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
}
interface Container {
  name: string;
  image: string;
  securityContext?: SecurityContext;
  ports?: { hostPort?: number }[];
  resources?: { requests?: { memory?: string }; limits?: { memory?: string } };
  startupProbe?: unknown;
}
interface PodSpec {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: SecurityContext;
  containers: Container[];
  initContainers?: Container[];
  volumes?: Record<string, unknown>[];
}

const podOf = (o: K8sObject): PodSpec => {
  const spec = o.spec as { template?: { spec: PodSpec }; jobTemplate?: { spec: { template: { spec: PodSpec } } } };
  return spec.jobTemplate?.spec.template.spec ?? spec.template!.spec;
};

/** Every rule of the restricted profile this pod breaks, one line each. */
function restrictedViolations(pod: PodSpec): string[] {
  const problems: string[] = [];
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC) problems.push('shares a host namespace');
  for (const volume of pod.volumes ?? []) {
    const type = Object.keys(volume).find((k) => k !== 'name');
    if (!ALLOWED_VOLUMES.includes(type ?? '')) problems.push(`volume ${String(volume['name'])} is ${type}`);
  }
  if (pod.securityContext?.runAsUser === 0) problems.push('runs as uid 0');
  for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
    const sc = c.securityContext ?? {};
    const at = `container ${c.name}`;
    if (!(sc.runAsNonRoot ?? pod.securityContext?.runAsNonRoot)) problems.push(`${at}: runAsNonRoot is not true`);
    if ((sc.runAsUser ?? pod.securityContext?.runAsUser) === 0) problems.push(`${at}: runs as uid 0`);
    if (sc.privileged) problems.push(`${at}: privileged`);
    if (sc.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation is not false`);
    if (!sc.capabilities?.drop?.includes('ALL')) problems.push(`${at}: capabilities do not drop ALL`);
    for (const cap of sc.capabilities?.add ?? []) if (cap !== 'NET_BIND_SERVICE') problems.push(`${at}: adds capability ${cap}`);
    const seccomp = (sc.seccompProfile ?? pod.securityContext?.seccompProfile)?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') problems.push(`${at}: seccompProfile is ${seccomp ?? 'unset'}`);
    if ((c.ports ?? []).some((p) => p.hostPort !== undefined && p.hostPort !== 0)) problems.push(`${at}: a hostPort`);
  }
  return problems;
}

/** The runtime stage's USER of the Dockerfile every sluice image is built from. */
function dockerfileRuntimeUser(): string | undefined {
  const stages = readFileSync('Dockerfile', 'utf8').split(/^FROM /m);
  return [...(stages.at(-1) ?? '').matchAll(/^USER\s+(\S+)/gm)].at(-1)?.[1];
}

describe('the restricted rules themselves', () => {
  const good: PodSpec = {
    securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'c', image: 'i', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
  };
  it('admit a pod that follows them, and name each one a pod breaks', () => {
    expect(restrictedViolations(good)).toEqual([]);
    const bad: PodSpec = { hostNetwork: true, volumes: [{ name: 'h', hostPath: { path: '/' } }], containers: [{ name: 'c', image: 'i', securityContext: { privileged: true, capabilities: { add: ['SYS_ADMIN'] } } }] };
    expect(restrictedViolations(bad)).toEqual([
      'shares a host namespace',
      'volume h is hostPath',
      'container c: runAsNonRoot is not true',
      'container c: privileged',
      'container c: allowPrivilegeEscalation is not false',
      'container c: capabilities do not drop ALL',
      'container c: adds capability SYS_ADMIN',
      'container c: seccompProfile is unset',
    ]);
  });
});

describe.each(OVERLAYS)('%s', (overlay) => {
  const workloads = renderKustomization(overlay).filter((o) => WORKLOAD_KINDS.includes(o.kind));

  it('has workloads to check', () => {
    expect(workloads.length).toBeGreaterThanOrEqual(6);
  });

  it('is admitted by Pod Security "restricted": every pod and container', () => {
    const problems = workloads.flatMap((o) => restrictedViolations(podOf(o)).map((p) => `${o.kind} ${o.metadata.name}: ${p}`));
    expect(problems).toEqual([]);
  });

  it("runs sluice's images as the Dockerfile's non-root user, by number", () => {
    // node's official images create `node` as uid 1000 (github.com/nodejs/docker-node, Dockerfile-debian.template).
    expect(dockerfileRuntimeUser()).toBe('node');
    for (const o of workloads) {
      const pod = podOf(o);
      if (!pod.containers.some((c) => c.image.startsWith('sluice/'))) continue;
      expect(pod.securityContext?.runAsUser, o.metadata.name).toBe(1000);
    }
  });

  it('requests and limits memory and has a startup probe in every container', () => {
    for (const o of workloads) {
      for (const c of podOf(o).containers) {
        const at = `${o.kind} ${o.metadata.name} / ${c.name}`;
        expect(c.resources?.requests?.memory, at).toBeDefined();
        expect(c.resources?.limits?.memory, at).toBeDefined();
        expect(c.startupProbe, at).toBeDefined();
      }
    }
  });
});
