/**
 * One instance's page out of its worker process's: the `vllm:*` families, with only the series of
 * this instance (`engine="<rank>"`, vLLM's label for a data-parallel rank), as the pod of one vLLM
 * engine would show them. Series of the process (`process_*`, sluice's own) are left to the
 * worker's /metrics.
 */
export function instanceMetricsPage(page: string, rank: number): string {
  const engine = `engine="${rank}"`;
  const kept: string[] = [];
  for (const line of page.split('\n')) {
    if (line.startsWith('# HELP vllm:') || line.startsWith('# TYPE vllm:')) kept.push(line);
    else if (line.startsWith('vllm:') && hasLabel(line, engine)) kept.push(line);
  }
  return `${kept.join('\n')}\n`;
}

/** The label as one of the series' own (`{engine="1",` or `,engine="1"}`), not a prefix of another's value. */
function hasLabel(line: string, label: string): boolean {
  const open = line.indexOf('{');
  const close = line.lastIndexOf('}');
  if (open === -1 || close < open) return false;
  return `,${line.slice(open + 1, close)},`.includes(`,${label},`);
}
