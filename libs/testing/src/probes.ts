/**
 * Small probes for tests against running services: read one Prometheus sample, wait for a
 * condition. Waiting is polling with a deadline, never a fixed sleep.
 */

/** The value of the first sample of `name` whose labels contain `labels` (e.g. `reason="ok"`); 0 if none. `headers`: a scrape key's (gateway.auth). */
export async function metricValue(baseUrl: string, name: string, labels = '', headers: Readonly<Record<string, string>> = {}): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`, { headers })).text();
  const line = text.split('\n').find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && l.includes(labels));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/**
 * The sum of every sample of `name` whose labels contain each of `labels` (e.g. a gauge over all
 * flows, or `['outcome="dispatched"', 'le="0.005"']` for one bucket whatever the label order).
 */
export async function metricSum(baseUrl: string, name: string, labels: string | readonly string[] = '', headers: Readonly<Record<string, string>> = {}): Promise<number> {
  const wanted = typeof labels === 'string' ? [labels] : labels;
  const text = await (await fetch(`${baseUrl}/metrics`, { headers })).text();
  return text
    .split('\n')
    .filter((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((w) => l.includes(w)))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

/** Resolves once `check` is true; rejects with `what` after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
