import { COMMANDS, EXIT, findCommand, type CliContext } from './commands/index.js';
import { Output, type TextStream } from './terminal/output.js';
import { REPO_ROOT } from './paths.js';

export interface CliIo {
  readonly stdout?: TextStream;
  readonly stderr?: TextStream;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly rootDir?: string;
}

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length), 'help'.length) + 2;
  return [
    'Usage: sluice <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    `  ${'help'.padEnd(width)}show this text, or a command's options: sluice help <command>`,
    '',
    'Config flags for every command: --config FILE, --key.path=value (see sluice.yaml).',
  ].join('\n');
}

/** Runs one `sluice` invocation and resolves to its exit code. */
export async function runCli(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const env = io.env ?? process.env;
  const ctx: CliContext = {
    rootDir: io.rootDir ?? REPO_ROOT,
    cwd: io.cwd ?? process.cwd(),
    env,
    stdout: new Output(io.stdout ?? process.stdout, env),
    stderr: new Output(io.stderr ?? process.stderr, env),
  };
  const [name, ...rest] = argv;

  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic === undefined) {
      (name === undefined ? ctx.stderr : ctx.stdout).line(usage());
      return name === undefined ? EXIT.USAGE : EXIT.OK;
    }
    const command = findCommand(topic);
    if (!command) {
      ctx.stderr.line(`sluice: unknown command "${topic}"\n\n${usage()}`);
      return EXIT.USAGE;
    }
    ctx.stdout.line((await command.load()).usage);
    return EXIT.OK;
  }

  const command = findCommand(name);
  if (!command) {
    ctx.stderr.line(`sluice: unknown command "${name}"\n\n${usage()}`);
    return EXIT.USAGE;
  }
  return (await command.load()).run(rest, ctx);
}
