import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

function capture() {
  let text = '';
  return { stream: { write: (chunk: string) => (text += chunk) }, text: () => text };
}

async function run(...argv: string[]) {
  const out = capture();
  const err = capture();
  const code = await runCli(argv, { stdout: out.stream, stderr: err.stream, env: {}, cwd: '/tmp' });
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('sluice', () => {
  it('prints usage on stderr and exits 2 for an unknown command', async () => {
    const { code, stdout, stderr } = await run('frobnicate');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('unknown command "frobnicate"');
    expect(stderr).toContain('Usage: sluice <command>');
    expect(stderr).toMatch(/^\s+up\s+start NATS/m);
  });

  it('exits 2 without a command, 0 for help', async () => {
    expect((await run()).code).toBe(2);
    const help = await run('help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: sluice <command>');
    const upHelp = await run('help', 'up');
    expect(upHelp.stdout).toContain('--no-demo');
    expect((await run('up', '--help')).stdout).toContain('Usage: sluice up');
  });

  it('up: exits 2 on a usage error and on a bad config, before starting anything', async () => {
    const usage = await run('up', '--bogus');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('unknown option --bogus');

    const config = await run('up', '--gateway.port=not-a-port');
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('gateway.port');
    expect(config.stdout).toBe('');
  });

  it('writes no colour codes when the output is not a terminal', async () => {
    const { stderr } = await run('up', '--worker.model=nope');
    expect(stderr).toContain('worker.model');
    expect(stderr).not.toContain('\u001b[');
  });
});
