import { httpHeaders } from '@sluice/contracts';
import type { WorkloadRequest } from './generate.js';

/**
 * The scheduling headers a workload request is sent with: its tenant, its SLO class and, when it
 * has one, its TTFT target. `sluice run` sends them; the twin reads them back through the
 * gateway's own header rules (`readRequestHeaders` in @sluice/stages), so both see one request.
 */
export function schedulingHeadersOf(request: WorkloadRequest): Record<string, string> {
  const headers: Record<string, string> = {
    [httpHeaders.fairnessId]: request.fairnessId,
    [httpHeaders.sloClass]: request.sloClass,
  };
  const ttftMs = request.slo?.ttftMs;
  if (ttftMs !== undefined) headers[httpHeaders.sloTtftMs] = decimalMs(ttftMs);
  return headers;
}

/**
 * Milliseconds as the gateway reads them: digits and at most a µs fraction, no exponent
 * (`String(1e-7)` is "1e-7", which it refuses). The spec keeps targets at 1 µs or above.
 */
export function decimalMs(ms: number): string {
  const fixed = ms.toFixed(3);
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}
