// Loaded into each service by cpu-per-request.mjs --profile (NODE_OPTIONS=--import): SIGUSR2 starts
// a CPU profile of the process, the next SIGUSR2 writes it to $HOT_PATH_PROFILE_DIR as
// <service>-<pid>.cpuprofile (Chrome DevTools' format). Why not `node --cpu-prof`: it writes at a
// normal exit only, and a service stops on SIGTERM by raising the signal again after its shutdown.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const dir = process.env.HOT_PATH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let profiling = false;
  process.on('SIGUSR2', () => {
    profiling = !profiling;
    if (profiling) {
      session.post('Profiler.setSamplingInterval', { interval: 250 }, () => session.post('Profiler.enable', () => session.post('Profiler.start')));
      return;
    }
    session.post('Profiler.stop', (error, result) => {
      if (error) return process.stderr.write(`profile not written: ${error.message}\n`);
      const service = (process.argv[1] ?? 'node').split('/').slice(-3)[0];
      writeFileSync(`${dir}/${service}-${process.pid}.cpuprofile`, JSON.stringify(result.profile));
    });
  });
}
