import { describe, expect, it } from 'vitest';
import { instanceIdOf, queueGroups, subjectPatterns, subjects } from './subjects.js';

describe('subjects', () => {
  it('builds the versioned subjects of the protocol', () => {
    expect(subjects.admissionSubmit()).toBe('sluice.v1.admission.submit');
    expect(subjects.busyThresholds()).toBe('sluice.v1.admission.busy-thresholds');
    expect(subjects.flowSubmit()).toBe('sluice.v1.flow.submit');
    expect(subjects.routerSubmit()).toBe('sluice.v1.router.submit');
    expect(subjects.workerSubmit('w1-r0')).toBe('sluice.v1.worker.w1-r0.submit');
    expect(subjects.workerLoad('w1-r0')).toBe('sluice.v1.worker.w1-r0.load');
    expect(subjects.workerKv('w1-r0')).toBe('sluice.v1.worker.w1-r0.kv');
    expect(subjects.workerLifecycle('w1-r0')).toBe('sluice.v1.worker.w1-r0.lifecycle');
    expect(subjects.workerDone('w1-r0')).toBe('sluice.v1.worker.w1-r0.done');
    expect(subjects.inbox('gw-1', 'cmpl-abc')).toBe('sluice.v1.inbox.gw-1.cmpl-abc');
    expect(subjects.inboxOfGateway('gw-1')).toBe('sluice.v1.inbox.gw-1.>');
    expect(subjects.requestCancel()).toBe('sluice.v1.request.cancel');
    expect(subjects.workerDiscover()).toBe('sluice.v1.worker.discover');
    expect(subjects.control('admission', 'set-busy-threshold')).toBe('sluice.v1.control.admission.set-busy-threshold');
  });

  it('refuses ids that would address more than one subject', () => {
    for (const bad of ['a.b', '*', '>', 'a b', '']) {
      expect(() => subjects.workerSubmit(bad)).toThrow(/not a valid subject token/);
    }
    expect(() => subjects.inbox('gw', 'x.>')).toThrow(/request id/);
  });

  it('has wildcards that match the per-instance subjects', () => {
    const matches = (pattern: string, subject: string) => {
      const p = pattern.split('.');
      const s = subject.split('.');
      return p.length === s.length && p.every((token, i) => token === '*' || token === s[i]);
    };
    expect(matches(subjectPatterns.allWorkerLoad, subjects.workerLoad('x'))).toBe(true);
    expect(matches(subjectPatterns.allWorkerDone, subjects.workerDone('x'))).toBe(true);
    expect(matches(subjectPatterns.allWorkerLifecycle, subjects.workerLoad('x'))).toBe(false);
    expect(matches(subjectPatterns.allFlowQueues, subjects.flowQueue('flow-1'))).toBe(true);
    expect(matches(subjectPatterns.allFlowQueues, subjects.flowSubmit())).toBe(false);
    expect(() => subjects.flowQueue('a.b')).toThrow(/process id/);
    // The autoscaler hears the worker processes' presence, and no other service's.
    expect(matches(subjectPatterns.workerPresence, subjects.servicePresence('worker', 'worker-1'))).toBe(true);
    expect(matches(subjectPatterns.workerPresence, subjects.servicePresence('router', 'router-1'))).toBe(false);
  });

  it('reads the instance id back from a per-instance subject', () => {
    expect(instanceIdOf(subjects.workerLoad('w-3'))).toBe('w-3');
    expect(instanceIdOf(subjects.admissionSubmit())).toBeUndefined();
  });

  it('names one queue group per stateless service', () => {
    expect(new Set(Object.values(queueGroups)).size).toBe(Object.keys(queueGroups).length);
  });
});
