// A small open-loop HTTP load generator for the live cluster's OpenAI surface (node:http only).
// Used by tools/bench/live-path.mjs and tools/bench/overload.mjs.
//
// Open loop: arrivals at a fixed rate with constant spacing, whatever the server does. A 1 ms
// timer launches every request whose scheduled time has passed, and each request's latency counts
// from its *scheduled* send time, so a generator or a server that falls behind shows up in the
// latency instead of silently lowering the offered load (no coordinated omission).
//
// Each request yields one record:
//   status     HTTP status, or undefined when no response head arrived
//   error      a socket-level failure (ECONNRESET, ECONNREFUSED, ETIMEDOUT, EPIPE, EMFILE, …), also
//              set when the connection broke after the head (the status is kept then); 'DEADLINE'
//              when nothing answered within deadlineMs (the request is destroyed: unanswered)
//   latencyMs  scheduled send → end of the response body (or the failure)
//   ttfbMs     scheduled send → response head (for a stream the gateway sends the head with the first token)
//   lagMs      scheduled send → the moment the generator actually called http.request
//   sluice     the gateway's `sluice` extension ({ instance, priority, timings }) when present:
//              a `sluice` field of a JSON body, or the last SSE chunk before [DONE]
//   errorCode / errorType / errorMessage   from an error body: OpenAI's {error:{message,type,code}}
//              or Dynamo's bare {message,type,code}; for a stream, from an error event in it
//   droppedReason  the x-request-dropped-reason header
//   tokens     SSE chunks with a choice (streams)
import { Buffer } from 'node:buffer';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';

export const DEFAULT_PROMPT = 'one two three four five six seven eight';

/** A keep-alive agent; maxSockets: Infinity lets every outstanding request have its own connection. */
export function createAgent({ maxSockets = 256, keepAlive = true } = {}) {
  return new http.Agent({ keepAlive, maxSockets, maxFreeSockets: Number.isFinite(maxSockets) ? maxSockets : 1024, scheduling: 'fifo' });
}

/** The request body and headers of one completion; `body` is sent as is. */
export function completionRequest({ model = 'qwen3-14b', prompt = DEFAULT_PROMPT, maxTokens = 1, stream = false, reportTimings = true } = {}) {
  const body = Buffer.from(JSON.stringify({ model, prompt, max_tokens: maxTokens, ...(stream ? { stream: true } : {}) }));
  const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
  if (reportTimings) headers['x-sluice-report-timings'] = '1';
  return { path: '/v1/completions', method: 'POST', body, headers, stream };
}

function errorFields(value) {
  if (!value || typeof value !== 'object') return {};
  const e = value.error && typeof value.error === 'object' ? value.error : value;
  const out = {};
  if (e.code !== undefined && e.code !== null) out.errorCode = String(e.code);
  if (typeof e.type === 'string') out.errorType = e.type;
  if (typeof e.message === 'string') out.errorMessage = e.message.slice(0, 200);
  return out;
}

/** Parses SSE events as they arrive: counts token chunks, keeps the `sluice` chunk and an error event. */
class SseReader {
  buffer = '';
  tokens = 0;
  sluice = undefined;
  error = undefined;
  done = false;

  push(text) {
    this.buffer += text;
    let cut;
    while ((cut = this.buffer.indexOf('\n\n')) >= 0) {
      const event = this.buffer.slice(0, cut);
      this.buffer = this.buffer.slice(cut + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') {
          this.done = true;
          continue;
        }
        let value;
        try {
          value = JSON.parse(data);
        } catch {
          continue;
        }
        if (value && typeof value === 'object') {
          if (value.sluice) this.sluice = value.sluice;
          else if (value.error || (value.message && value.type)) this.error = errorFields(value);
          else if (Array.isArray(value.choices) && value.choices.length > 0) this.tokens += 1;
        }
      }
    }
  }
}

/**
 * Sends one request; resolves with its record (never rejects). `scheduledMs` is the
 * performance.now() time the request was due (default: now).
 */
export function sendRequest({ url, agent, request, deadlineMs = 30_000, scheduledMs = performance.now() }) {
  const target = typeof url === 'string' ? new URL(url) : url;
  return new Promise((resolve) => {
    const sentMs = performance.now();
    const record = { scheduledMs, lagMs: sentMs - scheduledMs, status: undefined, error: undefined, latencyMs: undefined, ttfbMs: undefined };
    let finished = false;
    let sse;
    const chunks = [];
    const finish = (error) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      record.latencyMs = performance.now() - scheduledMs;
      if (error !== undefined) record.error = error;
      if (sse) {
        record.tokens = sse.tokens;
        if (sse.sluice) record.sluice = sse.sluice;
        if (sse.error) Object.assign(record, sse.error, { streamError: true });
        else if (record.status === 200 && !sse.done && record.error === undefined) record.error = 'INCOMPLETE_STREAM';
      } else if (chunks.length > 0) {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          const value = JSON.parse(text);
          if (record.status === 200) {
            if (value && value.sluice) record.sluice = value.sluice;
          } else Object.assign(record, errorFields(value));
        } catch {
          if (record.status !== 200) record.errorMessage = text.slice(0, 200);
        }
      }
      resolve(record);
    };
    const req = http.request(
      { protocol: target.protocol, hostname: target.hostname, port: target.port, path: request.path, method: request.method, agent, headers: request.headers },
      (res) => {
        record.status = res.statusCode;
        record.ttfbMs = performance.now() - scheduledMs;
        const dropped = res.headers['x-request-dropped-reason'];
        if (dropped) record.droppedReason = String(dropped);
        const isSse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
        if (isSse) {
          sse = new SseReader();
          res.setEncoding('utf8');
          res.on('data', (text) => sse.push(text));
        } else res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => finish());
        res.on('aborted', () => finish('ECONNRESET'));
        res.on('error', (err) => finish(err.code ?? 'RESPONSE_ERROR'));
        res.on('close', () => finish(res.complete ? undefined : 'ECONNRESET'));
      },
    );
    const timer = setTimeout(() => {
      finish('DEADLINE');
      req.destroy();
    }, deadlineMs);
    req.on('error', (err) => finish(err.code ?? err.message ?? 'ERROR'));
    req.end(request.body);
  });
}

/**
 * Offers `rate` requests/s for `seconds`, constant spacing, then waits for every request to end
 * (each is given up after deadlineMs). Returns the records in send order and the run's clock.
 * Hooks: onLaunch(i) as each request is launched, onRecord(record, i) as each one ends,
 * onSendEnd() once the last request is launched (the offered load stops). startMs (a
 * performance.now() time, default now) is when request 0 is due.
 */
export async function runOpenLoop({ url, agent, request, rate, seconds, deadlineMs = 30_000, startMs, onLaunch, onRecord, onSendEnd }) {
  const total = Math.max(1, Math.round(rate * seconds));
  const spacing = 1000 / rate;
  const pending = new Array(total);
  let launched = 0;
  const t0 = startMs ?? performance.now() + 2;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (launched < total && t0 + launched * spacing <= now) {
        const i = launched++;
        const sent = sendRequest({ url, agent, request, deadlineMs, scheduledMs: t0 + i * spacing });
        pending[i] = onRecord ? sent.then((r) => (onRecord(r, i), r)) : sent;
        onLaunch?.(i);
      }
      if (launched >= total) {
        clearInterval(interval);
        resolve();
      }
    };
    const interval = setInterval(tick, 1);
  });
  const sendEndMs = performance.now();
  onSendEnd?.();
  const records = await Promise.all(pending);
  const endMs = performance.now();
  // What the server got done while the load was offered: good answers that ended in the window.
  const windowMs = seconds * 1000;
  const okInWindow = records.filter((r) => isOk(r) && r.scheduledMs + r.latencyMs <= t0 + windowMs).length;
  return {
    rate,
    seconds,
    sent: total,
    t0,
    sendSeconds: (sendEndMs - t0) / 1000,
    drainSeconds: (endMs - sendEndMs) / 1000,
    achievedRate: okInWindow / seconds,
    records,
  };
}

/**
 * Closed loop: `concurrency` clients, each sending its next request when the last one ends, for
 * `seconds`. Returns good completions per second that ended after the first `warmupSeconds`
 * (the ramp while the first requests are still in progress) and within the window, and the records.
 */
export async function runClosedLoop({ url, agent, request, concurrency, seconds, warmupSeconds = 0, deadlineMs = 60_000 }) {
  const t0 = performance.now();
  const from = t0 + warmupSeconds * 1000;
  const end = t0 + seconds * 1000;
  const records = [];
  const client = async () => {
    while (performance.now() < end) records.push(await sendRequest({ url, agent, request, deadlineMs }));
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const ok = records.filter((r) => isOk(r) && r.scheduledMs + r.latencyMs >= from && r.scheduledMs + r.latencyMs <= end).length;
  return { concurrency, seconds, warmupSeconds, completionsPerSecond: ok / (seconds - warmupSeconds), records };
}

// --- CPU of processes (Linux /proc) --------------------------------------------------------------

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture this runs on

/** CPU seconds (user + system) the process has used so far; undefined if it is gone. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The process's resident set size in MiB (VmRSS); undefined if it is gone. */
export function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds the whole machine has been busy (all cores, all processes: /proc/stat less idle and iowait). */
export function machineBusySeconds() {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0); // user … steal (guest time is inside user)
    return (total - ticks[3] - ticks[4]) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Starts counting the CPU of named pids; the returned stop() gives { seconds, cpu }: the wall
 * seconds since the start and the CPU seconds (user + system) each one used, undefined for one
 * that is gone, and under `machine` the whole machine's (every process on it, ours or not).
 */
export function cpuUsage(pids) {
  const t = performance.now();
  const read = () => ({ ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)])), machine: machineBusySeconds() });
  const start = read();
  return () => {
    const seconds = (performance.now() - t) / 1000;
    const now = read();
    const cpu = {};
    for (const name of Object.keys(now)) cpu[name] = now[name] === undefined || start[name] === undefined ? undefined : now[name] - start[name];
    return { seconds, cpu };
  };
}

/**
 * Starts measuring the CPU of named pids; the returned stop() gives cores used (CPU s per s) by
 * name, and under `machine` the whole machine's (every process on it, ours or not).
 */
export function cpuMeter(pids) {
  const stop = cpuUsage(pids);
  return () => {
    const { seconds, cpu } = stop();
    return Object.fromEntries(Object.entries(cpu).map(([name, s]) => [name, s === undefined ? undefined : s / seconds]));
  };
}

/**
 * runOpenLoop spread over `processes` child processes, each offering rate/processes with its
 * arrivals interleaved with the others' (so the whole is still evenly spaced). For loads that keep
 * more connections open than one process may have file descriptors (each child has its own), and
 * whose response parsing would keep one event loop too busy to launch on time.
 * `requestOptions` are completionRequest's. Returns what runOpenLoop returns, records merged;
 * onStart({ 'generator-0': pid, … }) once the children are up; `nice` lowers their priority; onProgress({ launched, ended })
 * about once a second; onSendEnd() when every child has launched its last.
 */
export async function runOpenLoopForked({ processes = 2, url, requestOptions, rate, seconds, deadlineMs = 30_000, maxSockets = Infinity, nice = 0, onStart, onProgress, onSendEnd }) {
  const children = Array.from({ length: processes }, () => fork(fileURLToPath(import.meta.url), [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  // A lower scheduling priority (`nice`, 0–19) lets the system under test have the CPU first, as it
  // would with its clients on other machines.
  if (nice > 0) for (const child of children) setPriority(child.pid, nice);
  const progress = children.map(() => ({ launched: 0, ended: 0 }));
  let sendEnds = 0;
  try {
    await Promise.all(children.map((c) => new Promise((resolve, reject) => c.once('message', resolve).once('error', reject))));
    onStart?.(Object.fromEntries(children.map((c, k) => [`generator-${k}`, c.pid])));
    const startWallMs = performance.timeOrigin + performance.now() + 200;
    const done = children.map(
      (child, k) =>
        new Promise((resolve, reject) => {
          child.on('message', (m) => {
            if (m.type === 'progress') {
              progress[k] = m;
              onProgress?.(progress.reduce((a, p) => ({ launched: a.launched + p.launched, ended: a.ended + p.ended }), { launched: 0, ended: 0 }));
            } else if (m.type === 'sendEnd') {
              if (++sendEnds === processes) onSendEnd?.();
            } else if (m.type === 'done') resolve(m.run);
          });
          child.once('exit', (code) => reject(new Error(`load generator child exited with ${code} before it reported`)));
          child.send({ url: String(url), requestOptions, rate: rate / processes, seconds, deadlineMs, maxSockets, startWallMs: startWallMs + (k * 1000) / rate });
        }),
    );
    const runs = await Promise.all(done);
    const t0 = Math.min(...runs.map((r) => r.t0Wall));
    const records = runs.flatMap((r) => r.records).sort((a, b) => a.scheduledWallMs - b.scheduledWallMs);
    return {
      rate,
      seconds,
      sent: records.length,
      t0Wall: t0,
      sendSeconds: Math.max(...runs.map((r) => r.sendSeconds)),
      drainSeconds: Math.max(...runs.map((r) => r.drainSeconds)),
      achievedRate: runs.reduce((a, r) => a + r.achievedRate, 0),
      records,
    };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}

// A child of runOpenLoopForked: one job, its records back, exit.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', async (job) => {
    const agent = createAgent({ maxSockets: job.maxSockets });
    let launched = 0;
    let ended = 0;
    const timer = setInterval(() => process.send({ type: 'progress', launched, ended }), 1000);
    const run = await runOpenLoop({
      url: new URL(job.url),
      agent,
      request: completionRequest(job.requestOptions),
      rate: job.rate,
      seconds: job.seconds,
      deadlineMs: job.deadlineMs,
      startMs: job.startWallMs - performance.timeOrigin,
      onLaunch: () => (launched += 1),
      onRecord: () => (ended += 1),
      onSendEnd: () => process.send({ type: 'sendEnd' }),
    });
    clearInterval(timer);
    agent.destroy();
    for (const r of run.records) r.scheduledWallMs = performance.timeOrigin + r.scheduledMs;
    process.send({ type: 'done', run: { ...run, t0Wall: performance.timeOrigin + run.t0 } }, () => process.exit(0));
  });
  process.send({ type: 'ready' });
}

// --- reading records ---------------------------------------------------------------------------

export const isOk = (r) => r.status === 200 && r.error === undefined && !r.streamError;

/** A socket-level failure (no HTTP answer, or a connection broken mid-answer), not a deadline. */
export const isTcpFailure = (r) => r.error !== undefined && r.error !== 'DEADLINE' && r.error !== 'INCOMPLETE_STREAM';

/** The record's outcome as one label: `200`, `429 flow_capacity`, `ECONNRESET`, `200 stream error ttl_expired`, `DEADLINE`. */
export function outcomeLabel(r) {
  if (r.error !== undefined) return r.status !== undefined ? `${r.status} then ${r.error}` : r.error;
  if (r.streamError) return `${r.status} stream error ${r.errorCode ?? r.errorType ?? '?'}`;
  if (r.status === 200) return '200';
  return `${r.status} ${r.errorCode ?? r.droppedReason ?? r.errorType ?? ''}`.trim();
}

export function countBy(records, key) {
  const counts = {};
  for (const r of records) {
    const k = key(r);
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

/** Percentile with linear interpolation (as hop-latency.mjs); undefined for no samples. */
export function pct(sorted, p) {
  if (sorted.length === 0) return undefined;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (rank - lo);
}

export function stats(values) {
  const s = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p99: pct(s, 99), max: s.length ? s[s.length - 1] : undefined };
}

/** ms with a sensible precision; '–' for absent. */
export function fmtMs(ms, digits) {
  if (ms === undefined || ms === null || !Number.isFinite(ms)) return '–';
  const d = digits ?? (Math.abs(ms) < 10 ? 2 : Math.abs(ms) < 100 ? 1 : 0);
  return `${ms.toFixed(d)} ms`;
}

// --- the gateway's /metrics --------------------------------------------------------------------

/**
 * GET `url` on its own short-lived connection: { status, ms, connectMs, text } or { error, ms }.
 * `connectMs` is the TCP connect alone (a new connection's), so a slow answer can be told from a
 * slow accept.
 */
export function probe(url, { timeoutMs = 10_000, agent = false } = {}) {
  const t = performance.now();
  return new Promise((resolve) => {
    let done = false;
    let connectMs;
    const end = (value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ms: performance.now() - t, connectMs, ...value });
    };
    const req = http.get(url, { agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => end({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => end({ error: err.code ?? 'RESPONSE_ERROR' }));
    });
    const timer = setTimeout(() => {
      end({ error: 'DEADLINE' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err) => end({ error: err.code ?? 'ERROR' }));
    req.on('socket', (socket) => socket.once('connect', () => (connectMs = performance.now() - t)));
  });
}

/** Prometheus text → [{ name, labels, value }] (no exemplars, no timestamps needed here). */
export function parseMetrics(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    if (m[3]) for (const l of m[3].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return out;
}

/** Sum of a metric's series, optionally grouped by one label: a number, or { label value: sum }. */
export function metricSum(samples, name, byLabel) {
  const picked = samples.filter((s) => s.name === name);
  if (!byLabel) return picked.reduce((a, s) => a + s.value, 0);
  const out = {};
  for (const s of picked) out[s.labels[byLabel] ?? ''] = (out[s.labels[byLabel] ?? ''] ?? 0) + s.value;
  return out;
}

export async function scrape(baseUrl) {
  const r = await probe(`${baseUrl}/metrics`);
  if (r.status !== 200) throw new Error(`GET ${baseUrl}/metrics: ${r.status ?? r.error}`);
  return parseMetrics(r.text);
}

/** Waits until the gateway holds no request (sluice_requests_in_flight = 0) or timeoutMs passed. */
export async function waitIdle(gatewayUrl, timeoutMs = 30_000) {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const inFlight = metricSum(await scrape(gatewayUrl), 'sluice_requests_in_flight');
    if (inFlight === 0 || performance.now() > end) return inFlight;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A table: rows of cells, first column left-aligned, the rest right-aligned (or all left with { left: true }). */
export function table(rows, { left = false } = {}) {
  const widths = [];
  for (const row of rows) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, String(c).length)));
  const cell = (c, i) => (i === 0 || left ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]));
  return rows.map((row) => row.map(cell).join('  ').trimEnd()).join('\n');
}
