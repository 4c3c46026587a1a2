import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as received over OTLP/HTTP (JSON encoding), with its resource's service name. */
export interface ReceivedSpan {
  readonly service: string;
  /** Its resource's attributes (`service.name`, `service.instance.id`, …). */
  readonly resource: Record<string, string | number | boolean>;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, string | number | boolean>;
  /** Span events (e.g. the router's `candidate` events), in the order recorded. */
  readonly events: readonly { readonly name: string; readonly attributes: Record<string, string | number | boolean> }[];
}

export interface OtlpReceiver {
  /** The base URL to put in OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  /** The standard OTEL_* variables that make a service export its spans here, in small quick batches. */
  readonly exportEnv: Readonly<Record<string, string>>;
  readonly spans: ReceivedSpan[];
  /** Resolves when `predicate` holds over the spans received so far (polled as batches arrive). */
  waitFor(predicate: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
interface OtlpKeyValue { key: string; value: AnyValue }
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: {
      spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpKeyValue[]; events?: { name: string; attributes?: OtlpKeyValue[] }[] }[];
    }[];
  }[];
}

function valueOf(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  // An array (e.g. gen_ai.response.finish_reasons) as its values comma-joined: enough to compare.
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(valueOf).join(',');
  return v.boolValue ?? '';
}

function attributes(list: OtlpKeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

/**
 * A real OTLP/HTTP trace receiver (the JSON encoding, `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`):
 * what Jaeger or a collector would be, small enough to start inside a test.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces;
        for (const rs of body.resourceSpans ?? []) {
          const resource = attributes(rs.resource?.attributes);
          const service = String(resource['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service,
                resource,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                attributes: attributes(s.attributes),
                events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attributes(e.attributes) })),
              });
            }
          }
        }
        for (const wake of waiters) wake();
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    exportEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100' },
    spans,
    waitFor(predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`spans did not arrive within ${timeoutMs} ms (${spans.length} received)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
