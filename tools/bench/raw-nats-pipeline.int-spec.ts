import { startNats, type NatsServerHandle } from '@sluice/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesPerRequest, natsMessageCounts } from './live/nats-messages.mjs';
import { benchInferenceRequest } from './raw-nats.mjs';
import { openRawPipeline } from './raw-nats-pipeline.mjs';

describe('the raw pipeline baseline, on a real nats-server with five relay processes', () => {
  let nats: NatsServerHandle;
  beforeAll(async () => {
    nats = await startNats({ monitor: true });
  });
  afterAll(async () => {
    await nats.stop();
  });

  it('answers every request it offers, six transits and five acks each, as /varz counts them', async () => {
    const pipeline = await openRawPipeline(nats.url);
    try {
      const payload = JSON.stringify(benchInferenceRequest());
      const before = await natsMessageCounts(nats.monitorUrl);
      const run = await pipeline.measure(200, 0.5, payload);
      const messages = messagesPerRequest(before, await natsMessageCounts(nats.monitorUrl), run.answered);
      expect(run).toMatchObject({ rate: 200, sent: 100, answered: 100 });
      expect(run.latencyMs.every((ms: number) => ms > 0)).toBe(true);
      // The request, four relayed forwards and the last relay's answer; an ack for each forward but the last.
      expect(messages).toEqual({ published: 11, delivered: 11 });

      // A second measurement on the same chain counts only its own requests.
      const again = await pipeline.measure(100, 0.2, payload);
      expect(again).toMatchObject({ sent: 20, answered: 20 });
    } finally {
      await pipeline.close();
    }
  });
});
