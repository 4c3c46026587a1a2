#!/usr/bin/env node
import { runCli } from './cli.js';

try {
  const code = await runCli(process.argv.slice(2));
  // Exit explicitly: an idle keep-alive socket must not hold the process after the command is done.
  process.exit(code);
} catch (error) {
  process.stderr.write(`sluice: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
