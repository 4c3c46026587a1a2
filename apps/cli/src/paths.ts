import { fileURLToPath } from 'node:url';

/** The repo root: this file is apps/cli/src/paths.ts (vitest) or apps/cli/dist/paths.js (runtime). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/[\\/]$/, '');
