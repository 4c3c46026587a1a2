import type { ChaosSection } from '@sluice/report';
import type { Output } from '../terminal/output.js';

const ms = (v: number | null): string => (v === null ? '–' : `${v.toFixed(0)} ms`);
const s = (v: number | null): string => (v === null ? '–' : `${(v / 1000).toFixed(2)} s`);

/** The chaos part of the terminal summary, below the run's table: invariants, faults, outcomes, migrations, verdict. */
export function printChaosSummary(out: Output, chaos: ChaosSection): void {
  out.line('');
  out.line(out.bold(`chaos: ${chaos.scenario.name}${chaos.scenario.scale === 1 ? '' : ` (time axis × ${chaos.scenario.scale})`}`));
  out.line('invariants');
  const width = Math.max(...chaos.invariants.map((i) => i.id.length));
  for (const i of chaos.invariants) {
    const mark = i.status === 'pass' ? out.green('✓') : i.status === 'fail' ? out.red('✗') : out.dim('–');
    out.line(`  ${mark} ${i.id.padEnd(width)}  ${i.title}`);
    for (const d of i.details) out.line(`      ${i.status === 'fail' ? d : out.dim(d)}`);
  }
  out.line('faults');
  for (const f of chaos.faults) {
    const fired = f.firedAtMs === null ? `not fired (${f.detail})` : `at ${s(f.firedAtMs)}${f.undoneAtMs === null ? '' : `–${s(f.undoneAtMs)}`}`;
    const detect = f.detectMs === null ? 'not detected' : `detect ${ms(f.detectMs)} (${f.detectedBy})`;
    const recover = f.recoverMs === null ? f.recovery : `recover ${ms(f.recoverMs)}`;
    out.line(`  ${f.action} ${f.target}  ${fired}  ${detect}  ${recover}`);
    if (f.error !== null) out.line(`      ${out.red(f.error)}`);
    else if (f.detail) out.line(`      ${out.dim(f.detail)}`);
  }
  const outcomes = Object.entries(chaos.outcomesByReason)
    .sort(([, a], [, b]) => b - a)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  out.line(`outcomes    ${outcomes || 'none'}`);
  const reasons = Object.entries(chaos.migrations.byReason)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  out.line(`migrations  ${chaos.migrations.total}${reasons ? ` (${reasons})` : ''}`);
  const restarted = chaos.processesAfter.filter((p) => p.restarts > 0);
  out.line(`restarted   ${restarted.length === 0 ? 'none' : restarted.map((p) => `${p.name} ×${p.restarts}`).join(', ')}`);
  const failed = chaos.invariants.filter((i) => i.status === 'fail').map((i) => i.id);
  const faultErrors = chaos.faults.filter((f) => f.error !== null).length;
  if (chaos.passed) out.line(out.green('every invariant held'));
  else out.line(out.red(`FAILED: ${[...failed, ...(faultErrors > 0 ? [`${faultErrors} fault${faultErrors === 1 ? '' : 's'} could not be injected`] : [])].join(', ')}`));
}
