/**
 * NATS subject patterns as a bus fault rule names them (`*` one token, `>` one or more trailing
 * tokens), for the few subjects the twin carries. The live bus's matcher is in libs/bus
 * (bus-fault-rules.ts), which the twin may not import (it does I/O); this is the same reading.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

/**
 * Of two patterns that both match a subject, whether `a` is the more specific: token by token from
 * the left, a literal beats `*`, which beats `>` (the live rule's choice, so the same rule applies).
 */
export function moreSpecific(a: string, b: string): boolean {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = rank(x[i]) - rank(y[i]);
    if (d !== 0) return d > 0;
  }
  return false;
}

function rank(token: string | undefined): number {
  if (token === undefined) return -1;
  if (token === '>') return 0;
  return token === '*' ? 1 : 2;
}
