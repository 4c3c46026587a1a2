import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterStateFile, inspectClusterState, readClusterState, removeStaleClusterState, staleStateMessage, writeClusterState } from './cluster-state.js';

/** A pid that surely belonged to a process that has exited: a child run to its end. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid;
}

function checkout(): string {
  return mkdtempSync(join(tmpdir(), 'sluice-state-'));
}

const base = { natsUrl: 'nats://127.0.0.1:4222', gatewayUrl: 'http://127.0.0.1:8080' };

describe('cluster state', () => {
  it('is running while the pid that wrote it is this process, and written readable by its owner only', () => {
    const root = checkout();
    writeClusterState(root, { ...base, pid: process.pid });
    expect(inspectClusterState(root).kind).toBe('running');
    expect(readClusterState(root)?.pid).toBe(process.pid);
    expect(statSync(clusterStateFile(root)).mode & 0o777).toBe(0o600);
  });

  it('is stale when the launcher that wrote it is gone, and readClusterState does not return it', () => {
    const root = checkout();
    writeClusterState(root, { ...base, pid: deadPid() });
    expect(inspectClusterState(root).kind).toBe('stale');
    expect(readClusterState(root)).toBeUndefined();
  });

  it.runIf(existsSync('/proc/self/stat'))('is stale when the pid now belongs to another process (its start time differs)', () => {
    const root = checkout();
    writeClusterState(root, { ...base, pid: process.pid });
    const file = clusterStateFile(root);
    const state = JSON.parse(readFileSync(file, 'utf8')) as { pidStartTime: string };
    expect(state.pidStartTime).toMatch(/^\d+$/);
    writeFileSync(file, JSON.stringify({ ...state, pidStartTime: String(Number(state.pidStartTime) + 1) }));
    expect(inspectClusterState(root).kind).toBe('stale');
  });

  it('has no cluster without a file or with one that is not JSON', () => {
    const root = checkout();
    expect(inspectClusterState(root).kind).toBe('none');
    mkdirSync(join(root, '.sluice'), { recursive: true });
    writeFileSync(clusterStateFile(root), '{not json');
    expect(inspectClusterState(root).kind).toBe('none');
  });

  it('says how to clean up a stale state, and removeStaleClusterState removes it with the run secrets it names under .sluice only', () => {
    const root = checkout();
    const secrets = join(root, '.sluice', 'nats-abc');
    const elsewhere = mkdtempSync(join(tmpdir(), 'sluice-elsewhere-'));
    mkdirSync(secrets, { recursive: true });
    writeFileSync(join(secrets, 'control.nk'), 'SU\n');
    writeClusterState(root, { ...base, pid: deadPid(), natsControl: { nkeySeedFile: join(secrets, 'control.nk') }, natsTlsCaFile: join(elsewhere, 'ca.pem') });
    const status = inspectClusterState(root);
    expect(status.kind).toBe('stale');
    if (status.kind !== 'stale') return;
    const message = staleStateMessage(root, status.state);
    expect(message).toContain(`the \`sluice up\` (pid ${status.state.pid}) that wrote it is no longer running`);
    expect(message).toContain('Run `sluice up` again');
    expect(message).toContain('nats-abc');

    expect(removeStaleClusterState(root)?.pid).toBe(status.state.pid);
    expect(existsSync(clusterStateFile(root))).toBe(false);
    expect(existsSync(secrets)).toBe(false);
    expect(existsSync(elsewhere)).toBe(true);
  });

  it('leaves a running state alone', () => {
    const root = checkout();
    writeClusterState(root, { ...base, pid: process.pid });
    expect(removeStaleClusterState(root)).toBeUndefined();
    expect(existsSync(clusterStateFile(root))).toBe(true);
  });
});
