import { describe, expect, it } from 'vitest';
import { canConnect, natsAnswers, parseNatsServers, findNatsServer, startNats } from './index.js';

const binary = findNatsServer() !== undefined;
const required = process.env.CI === 'true';

describe.runIf(binary || required)('startNats with a local nats-server', () => {
  it('starts it on a free port, answers, and closes the port on stop', async () => {
    if (!binary) throw new Error('CI=true but nats-server is not installed (apt-get install nats-server)');
    const nats = await startNats();
    expect(nats.kind).toBe('process');
    expect(nats.pid).toBeGreaterThan(0);
    const [server] = parseNatsServers(nats.url);
    expect(server?.host).toBe('127.0.0.1');
    expect(await natsAnswers(server!.host, server!.port)).toBe(true);

    await nats.stop();
    await nats.stop(); // idempotent
    expect(await canConnect(server!.host, server!.port, 500)).toBe(false);
    expect(() => process.kill(nats.pid!, 0)).toThrow();
  });

  it('uses a given URL without starting anything, and leaves that server alone on stop', async () => {
    const own = await startNats();
    try {
      const external = await startNats({ url: own.url });
      expect(external).toMatchObject({ kind: 'external', url: own.url });
      expect(external.pid).toBeUndefined();
      await external.stop();
      const [server] = parseNatsServers(own.url);
      expect(await natsAnswers(server!.host, server!.port)).toBe(true);
    } finally {
      await own.stop();
    }
  });
});
