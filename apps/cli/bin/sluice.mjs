#!/usr/bin/env node
// The `sluice` command npm links into node_modules/.bin. npm makes that link at install time and
// only for a file that exists then, while dist/ appears later, with the build; so the link points
// here, a committed file, and this file loads the build.
import { existsSync } from 'node:fs';
import { enableCompileCache } from 'node:module';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('sluice: the CLI is not built yet (apps/cli/dist/main.js is missing); run `npm run build` (or `npm start`) in the repository first.\n');
  process.exit(1);
}
// Before the CLI's modules load: their compiled bytecode is kept on disk and read at the next
// start (libs/launcher/src/compile-cache.ts); a quiet optimisation that never fails a command.
enableCompileCache();
await import(main.href);
