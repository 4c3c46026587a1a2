// A vitest reporter for `npm test`: each test file's wall time, from queued to done, so its
// beforeAll and afterAll (where most integration files start and stop a cluster) are counted.
// vitest's own JSON report times a file from its first test's start to its last test's end.
// Writes { "<file>": seconds, … } to the path in TEST_FILE_TIMES (default .sluice/vitest-file-times.json);
// not a SLUICE_* name: those are config keys (sluice's config reads the environment), and the
// clusters the tests start inherit this one.
import { writeFileSync } from 'node:fs';

export default class FileTimes {
  queued = new Map();
  seconds = {};

  onTestModuleQueued(module) {
    this.queued.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module) {
    const start = this.queued.get(module.moduleId);
    if (start !== undefined) this.seconds[module.moduleId] = (Date.now() - start) / 1000;
  }

  onTestRunEnd() {
    writeFileSync(process.env.TEST_FILE_TIMES ?? '.sluice/vitest-file-times.json', `${JSON.stringify(this.seconds, null, 1)}\n`);
  }
}
