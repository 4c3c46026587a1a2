import { describe, expect, it } from 'vitest';
import { natsProcessAttributes } from './span-conventions.js';

describe('natsProcessAttributes', () => {
  it('names a stage’s handling of a NATS message as the messaging conventions’ process operation', () => {
    expect(natsProcessAttributes('sluice.v1.router.submit', 'sluice-router')).toEqual({
      'messaging.system': 'nats',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': 'sluice.v1.router.submit',
      'messaging.consumer.group.name': 'sluice-router',
    });
  });

  it('names no consumer group for a subject read without one', () => {
    expect(natsProcessAttributes('sluice.v1.worker.w-r0.submit')).not.toHaveProperty('messaging.consumer.group.name');
  });
});
