import { ConfigSchema } from '@sluice/config';
import { ACCEPTORS, LISTEN_BACKLOG } from '@sluice/service';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readListening, readProcessTable } from './architecture-doc.js';
import { readConfigExample, readDefaultPorts } from './readme-doc.js';

/** The config section of each service process, as docs/architecture.md's process table names it. */
const SECTIONS = { gateway: 'gateway', admission: 'admission', 'flow-controller': 'flowController', router: 'router', worker: 'worker', autoscaler: 'autoscaler' } as const;

/** The port a config section defaults to (undefined: the section has none). */
const defaults = ConfigSchema.parse({}) as unknown as Record<string, { port?: number } | undefined>;
const defaultPort = (section: string): number | undefined => defaults[section]?.port;

describe('docs/architecture.md, "Processes"', () => {
  const table = readProcessTable();

  it('lists every service with the HTTP port its config section defaults to', () => {
    expect(table.map((row) => row.process)).toEqual([...Object.keys(SECTIONS), 'sluice']);
    for (const row of table.filter((r) => r.port !== undefined)) {
      const section = SECTIONS[row.process as keyof typeof SECTIONS];
      expect(row.port, `docs/architecture.md:${row.line}: ${row.process}'s port (config ${section}.port)`).toBe(defaultPort(section));
    }
  });

  it('says how many sockets each service listens with, and how deep their accept queue is, as libs/service does', () => {
    const { sockets, backlog } = readListening();
    expect(sockets, 'docs/architecture.md: "Each service listens with N sockets" (ACCEPTORS in libs/service/src/service-bootstrap.ts)').toBe(String(ACCEPTORS));
    expect(backlog, 'docs/architecture.md: "The accept queue is N deep" (LISTEN_BACKLOG in libs/service/src/service-bootstrap.ts)').toBe(LISTEN_BACKLOG);
  });
});

describe('README.md', () => {
  it('gives each port it states as the config default', () => {
    const stated = readDefaultPorts();
    expect(stated.length).toBeGreaterThan(0);
    for (const { value, line } of stated) expect(value.port, `README.md:${line}: ${value.section}.port`).toBe(defaultPort(value.section));
  });

  it('writes the default ports in its example sluice.yaml', () => {
    const example = readConfigExample();
    const config = parse(example!.value) as Record<string, { port?: number }>;
    const sections = Object.keys(config).filter((section) => config[section]?.port !== undefined);
    expect(sections).toEqual(Object.values(SECTIONS));
    for (const section of sections) expect(config[section]!.port, `README.md's example sluice.yaml: ${section}.port`).toBe(defaultPort(section));
  });
});
