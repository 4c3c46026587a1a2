// Summarises a CPU profile (.cpuprofile) as shares of the process's busy time (idle, the
// profiler's own work and long gaps between samples left out): self time by package or lib, and by
// function; with `--include
// 'label=regex' …`, the inclusive share of the samples with a matching frame ("name url:line") on
// their stack, each sample counted once.
//   node tools/bench/hot-path/summarise-profile.mjs FILE.cpuprofile [--top 20] [--include 'zod=node_modules/zod' …]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args[0];
const top = Number(args[args.indexOf('--top') + 1] || 20);
const includes = args.flatMap((arg, i) => (args[i - 1] === '--include' ? [arg] : [])).map((spec) => {
  const at = spec.indexOf('=');
  return [spec.slice(0, at), new RegExp(spec.slice(at + 1))];
});

const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
// A sample's time is the gap since the one before. On a loaded machine a gap can span the whole
// time the process waited for a core (up to a second in the runs of 2026-11-29) and would be charged
// to whatever code ran next: each gap counts at most twice the median gap (one sampling interval).
const gaps = [...profile.timeDeltas].sort((a, b) => a - b);
const gapCapUs = 2 * (gaps[gaps.length >> 1] ?? 0);
const selfUs = new Map();
const cutUs = new Map();
profile.samples.forEach((id, i) => {
  const gap = profile.timeDeltas[i] ?? 0;
  selfUs.set(id, (selfUs.get(id) ?? 0) + Math.min(gap, gapCapUs));
  cutUs.set(id, (cutUs.get(id) ?? 0) + Math.max(0, gap - gapCapUs));
});

/** Where a frame's code lives: an npm package, a sluice lib or app file, a Node module, or V8's own. */
function placeOf({ url, functionName }) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /(libs|apps)\/([^/]+)\/(?:dist|src)\/(.*)$/.exec(url);
  if (own) return `${own[1]}/${own[2]}/${own[3]}`;
  return url || `(${functionName || 'native'})`;
}
const frameLabel = (n) => `${n.callFrame.functionName || '(anonymous)'} ${placeOf(n.callFrame)}:${n.callFrame.lineNumber + 1}`;
// The profiler's own work when it stops (an in-process inspector session) is not the service's.
const isProfiler = (n) => n.callFrame.url === 'node:inspector';

let busy = 0;
let cappedUs = 0;
const byPlace = new Map();
const byFunction = new Map();
const inclusive = new Map(includes.map(([label]) => [label, 0]));
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
for (const [id, us] of selfUs) {
  const stack = [];
  for (let at = id; at !== undefined; at = parentOf.get(at)) stack.push(nodes.get(at));
  if (stack[0].callFrame.functionName === '(idle)' || stack.some(isProfiler)) continue;
  busy += us;
  cappedUs += cutUs.get(id);
  const place = placeOf(stack[0].callFrame);
  add(byPlace, /^(libs|apps)\//.test(place) ? place.split('/').slice(0, 2).join('/') : place.startsWith('node:') ? 'node (built-in modules)' : place, us);
  add(byFunction, frameLabel(stack[0]), us);
  const labels = stack.map(frameLabel);
  for (const [label, pattern] of includes) if (labels.some((l) => pattern.test(l))) add(inclusive, label, us);
}

const share = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
const rows = (map, n) => [...map].sort((x, y) => y[1] - x[1]).slice(0, n).map(([key, us]) => `${share(us)}  ${key}`);
console.log(`${file}: busy ${(busy / 1e6).toFixed(2)} s (${(cappedUs / 1e6).toFixed(2)} s of gaps between samples over ${gapCapUs} µs left out: waits for a core)`);
console.log(['-- self time by place', ...rows(byPlace, top), '-- self time by function', ...rows(byFunction, top)].join('\n'));
if (includes.length > 0) console.log(['-- inclusive', ...[...inclusive].map(([label, us]) => `${share(us)}  ${label}`)].join('\n'));
