// Compiles one workspace package's src/ to dist/ with swc (run from the package's folder by
// `nx run-many -t build`). swc rather than tsc: NestJS needs decorator metadata, which swc emits
// in milliseconds, while type checking is a separate step (`npm run typecheck`).
import { readdirSync, mkdirSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { transformFile } from '@swc/core';
import { isTestFile } from './test-files.mjs';

const pkgDir = process.cwd();
const srcDir = join(pkgDir, 'src');
const outDir = join(pkgDir, 'dist');

function* walk(dir) {
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) yield* walk(full);
    else if (full.endsWith('.ts') && !full.endsWith('.d.ts') && !isTestFile(full)) yield full;
  }
}

rmSync(outDir, { recursive: true, force: true });
let count = 0;
for (const file of walk(srcDir)) {
  const { code, map } = await transformFile(file, {
    sourceMaps: true,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2023',
      keepClassNames: true,
    },
    module: { type: 'es6' },
  });
  const out = join(outDir, relative(srcDir, file)).replace(/\.ts$/, '.js');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${code}\n//# sourceMappingURL=${out.split('/').pop()}.map\n`);
  if (map) writeFileSync(`${out}.map`, map);
  count++;
}
console.log(`built ${count} files → ${relative(process.cwd(), outDir) || outDir}`);
