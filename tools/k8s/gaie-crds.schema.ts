import { z } from 'zod';

/*
 * The Gateway API Inference Extension's two CRDs as zod schemas, for checking infra/k8s without a
 * cluster (no npm package models them). Written from the CRDs' OpenAPI schemas at
 * kubernetes-sigs/gateway-api-inference-extension@1748e829d1161147aaf35e76699ec86fd88406d2:
 * config/crd/bases/inference.networking.k8s.io_inferencepools.yaml (v1) and
 * config/crd/bases/inference.networking.x-k8s.io_inferenceobjectives.yaml (v1alpha2): the required
 * fields, enums, bounds, patterns and the CEL rules of the spec. Status is the controller's, so
 * left out. Strict, as the API server's structural pruning would drop an unknown field silently.
 */

const DNS_SUBDOMAIN = /^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KIND = /^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const Metadata = z.looseObject({ name: z.string().max(253).regex(OBJECT_NAME), namespace: z.string().optional() });
const Port = z.strictObject({ number: z.number().int().min(1).max(65535) });

export const InferencePoolSchema = z.strictObject({
  apiVersion: z.literal('inference.networking.k8s.io/v1'),
  kind: z.literal('InferencePool'),
  metadata: Metadata,
  spec: z.strictObject({
    selector: z.strictObject({
      matchLabels: z
        .record(z.string(), z.string().max(63).regex(LABEL_VALUE))
        .refine((labels) => Object.keys(labels).length <= 64, 'at most 64 labels'),
    }),
    targetPorts: z
      .array(Port)
      .min(1)
      .max(8)
      // CEL: self.all(p1, self.exists_one(p2, p1.number==p2.number))
      .refine((ports) => new Set(ports.map((p) => p.number)).size === ports.length, 'port numbers must be unique'),
    appProtocol: z.enum(['http', 'kubernetes.io/h2c']).optional(),
    endpointPickerRef: z
      .strictObject({
        group: z.string().max(253).regex(DNS_SUBDOMAIN).optional(),
        kind: z.string().max(63).regex(KIND).optional(),
        name: z.string().min(1).max(253),
        port: Port.optional(),
        failureMode: z.enum(['FailOpen', 'FailClose']).optional(),
      })
      // CEL: self.kind != 'Service' || has(self.port); kind defaults to Service.
      .refine((ref) => (ref.kind ?? 'Service') !== 'Service' || ref.port !== undefined, "port is required when kind is 'Service' or unspecified (defaults to 'Service')")
      .optional(),
  }),
});

export const InferenceObjectiveSchema = z.strictObject({
  apiVersion: z.literal('inference.networking.x-k8s.io/v1alpha2'),
  kind: z.literal('InferenceObjective'),
  metadata: Metadata,
  spec: z.strictObject({
    priority: z.number().int().optional(),
    poolRef: z.strictObject({
      group: z.string().max(253).regex(DNS_SUBDOMAIN).optional(),
      kind: z.string().max(63).regex(KIND).optional(),
      name: z.string().min(1).max(253),
    }),
  }),
});

/** A schema in the shape of a kubernetes-models class (`new Model(data).validate()`), for one table of kinds. */
export function modelOf(schema: z.ZodType): new (data: never) => { validate(): void } {
  return class {
    constructor(private readonly data: unknown) {}
    validate(): void {
      const result = schema.safeParse(this.data);
      if (!result.success) throw new Error(result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    }
  };
}
