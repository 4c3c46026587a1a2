import { micros, type FlowQueueReport } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { FlowQueueBoard } from './flow-queue-board.js';

const report = (processId: string, atUs: number, bands: FlowQueueReport['bands']): FlowQueueReport => ({ processId, atUs: micros(atUs), bands });

describe('FlowQueueBoard', () => {
  it('counts the requests of equal or higher priority, summed over the flow controllers', () => {
    const board = new FlowQueueBoard(micros(3_000_000));
    board.onReport(report('f1', 1_000, [{ model: 'm', priority: 4, requests: 2 }, { model: 'm', priority: 3, requests: 5 }, { model: 'm', priority: -2, requests: 7 }, { model: 'other', priority: 4, requests: 9 }]));
    board.onReport(report('f2', 2_000, [{ model: 'm', priority: 3, requests: 1 }]));
    // A standard request (3) waits behind critical (4) and standard, not behind sheddable (-2).
    expect(board.queuedAhead('m', 3, micros(2_000))).toBe(2 + 5 + 1);
    expect(board.queuedAhead('m', 4, micros(2_000))).toBe(2);
    expect(board.queuedAhead('m', -2, micros(2_000))).toBe(2 + 5 + 1 + 7);
    expect(board.oldestAtUs(micros(2_000))).toBe(1_000);
  });

  it('keeps the newer of two reports of one process, whatever order they arrive in', () => {
    const board = new FlowQueueBoard(micros(3_000_000));
    board.onReport(report('f1', 2_000, [{ model: 'm', priority: 0, requests: 1 }]));
    board.onReport(report('f1', 1_000, [{ model: 'm', priority: 0, requests: 9 }]));
    expect(board.queuedAhead('m', 0, micros(2_000))).toBe(1);
  });

  it("drops a silent controller's report past its maximum age", () => {
    const board = new FlowQueueBoard(micros(100_000));
    board.onReport(report('f1', 0, [{ model: 'm', priority: 0, requests: 3 }]));
    expect(board.queuedAhead('m', 0, micros(100_000))).toBe(3);
    expect(board.queuedAhead('m', 0, micros(100_001))).toBe(0);
    expect(board.oldestAtUs(micros(100_001))).toBeUndefined();
    board.expire(micros(100_001));
    expect(board.oldestAtUs(micros(0))).toBeUndefined();
  });

  it('ages a report dated in the future from the first time it is read, and a later true report of that process replaces it', () => {
    const board = new FlowQueueBoard(micros(100_000));
    const year3111 = 2 ** 55;
    board.onReport(report('forged', year3111, [{ model: 'm', priority: 0, requests: 50 }]));
    board.onReport(report('f1', year3111, [{ model: 'm', priority: 0, requests: 40 }]));
    expect(board.queuedAhead('m', 0, micros(1_000))).toBe(90);
    // Read at 1 ms it counts as taken then: never later than the reader's clock, and gone one maximum age on.
    expect(board.oldestAtUs(micros(1_000))).toBe(1_000);
    board.onReport(report('f1', 2_000, [{ model: 'm', priority: 0, requests: 1 }]));
    expect(board.queuedAhead('m', 0, micros(2_000))).toBe(51);
    expect(board.queuedAhead('m', 0, micros(101_001))).toBe(1);
    board.expire(micros(102_001));
    expect(board.oldestAtUs(micros(0))).toBeUndefined();
  });
});
