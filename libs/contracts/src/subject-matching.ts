/**
 * NATS subject patterns as bus fault rules name them (`*` one token, `>` one or more trailing
 * tokens), matched the way the NATS server does, and ranked when several match: one reading for
 * the live bus (libs/bus) and the twin (libs/twin), which may not import each other.
 * The token forms take subjects already split on '.', for callers that split once.
 */

export function patternMatchesTokens(pattern: readonly string[], subject: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p === '>') return subject.length > i;
    if (i >= subject.length || (p !== '*' && p !== subject[i])) return false;
  }
  return pattern.length === subject.length;
}

/**
 * Of two patterns that both match a subject, whether `a` is strictly the more specific: token by
 * token from the left, a literal beats `*`, which beats `>`. Two different patterns that match the
 * same subject always differ somewhere, so the order rules were set in never decides.
 */
export function moreSpecificTokens(a: readonly string[], b: readonly string[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = rank(a[i]) - rank(b[i]);
    if (d !== 0) return d > 0;
  }
  return false;
}

export function subjectMatches(pattern: string, subject: string): boolean {
  return patternMatchesTokens(pattern.split('.'), subject.split('.'));
}

export function moreSpecificPattern(a: string, b: string): boolean {
  return moreSpecificTokens(a.split('.'), b.split('.'));
}

function rank(token: string | undefined): number {
  if (token === undefined) return -1;
  if (token === '>') return 0;
  return token === '*' ? 1 : 2;
}
