import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@sluice/launcher';

export const TELEMETRY_DOC = join(REPO_ROOT, 'docs', 'telemetry.md');

/** An attribute row: `| \`name\` | set when | meaning |`. */
export interface DocumentedAttribute {
  /** The name; a `<placeholder>` (`scores.<scorer>`, `process.<attribute>`) stands for any non-empty rest of a name. */
  readonly name: string;
  /** `always`, or the condition under which it is set (`valid request`, `token-bucket`, …). */
  readonly when: string;
}

export interface DocumentedSpan {
  /** The span's names (the gateway's span has one per endpoint). */
  readonly names: readonly string[];
  readonly service: string;
  /** OTLP's SpanKind name: SERVER, CONSUMER, INTERNAL, … */
  readonly kind: string;
  readonly attributes: readonly DocumentedAttribute[];
}

export interface DocumentedEvent {
  readonly name: string;
  /** The span it is recorded on. */
  readonly span: string;
  readonly attributes: readonly DocumentedAttribute[];
}

export interface TelemetryDoc {
  readonly resource: readonly DocumentedAttribute[];
  readonly spans: readonly DocumentedSpan[];
  readonly events: readonly DocumentedEvent[];
}

/**
 * The resource, span and event tables of docs/telemetry.md. Headings say what a table is about:
 * `## Resource`, `### span \`name\` (service.name, KIND)`, `### event \`name\` on \`span\``.
 */
export function readTelemetryDoc(text = readFileSync(TELEMETRY_DOC, 'utf8')): TelemetryDoc {
  const resource: DocumentedAttribute[] = [];
  const spans: DocumentedSpan[] = [];
  const events: DocumentedEvent[] = [];
  let current: DocumentedAttribute[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) {
      current = undefined;
      const span = /^### span (.*) \(([\w-]+), ([A-Z]+)\)\s*$/.exec(line);
      const event = /^### event `([^`]+)` on `([^`]+)`\s*$/.exec(line);
      if (/^## Resource\s*$/.test(line)) current = resource;
      else if (span) {
        current = [];
        spans.push({ names: [...span[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), service: span[2]!, kind: span[3]!, attributes: current });
      } else if (event) {
        current = [];
        events.push({ name: event[1]!, span: event[2]!, attributes: current });
      }
      continue;
    }
    const row = /^\|\s*`([^`]+)`\s*\|([^|]*)\|/.exec(line);
    if (current && row) current.push({ name: row[1]!, when: row[2]!.trim() });
  }
  return { resource, spans, events };
}

/** Whether a documented name (maybe with `<placeholder>` segments) names this attribute. */
export function attributeMatches(documented: string, actual: string): boolean {
  const pattern = documented
    .split(/(<[^>]+>)/)
    .map((part) => (part.startsWith('<') ? '.+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`).test(actual);
}
