import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '@sluice/launcher';

export const OFFLINE_IMAGES_SCRIPT = join(REPO_ROOT, 'infra', 'offline', 'build-images.sh');

/**
 * Runs infra/offline/build-images.sh: the base stand-ins (nats, prometheus, node) unless they
 * exist, and the sluice/<app>:local images from this checkout's build, so a compose test runs
 * the code under test. Throws with the script's output when it fails.
 */
export function buildOfflineImages(images: readonly string[] = [], timeoutMs = 300_000): Promise<string> {
  // The node stand-in is built from a Node 24 binary; the one running this test is a good one.
  const env = { ...process.env, ...(process.versions.node.startsWith('24.') ? { NODE24: process.execPath } : {}) };
  return new Promise((resolve, reject) => {
    execFile('bash', [OFFLINE_IMAGES_SCRIPT, ...images], { cwd: REPO_ROOT, env, timeout: timeoutMs, encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${OFFLINE_IMAGES_SCRIPT} failed (${error.message.split('\n')[0]}):\n${stdout}${stderr}`, { cause: error }));
      else resolve(stdout);
    });
  });
}
