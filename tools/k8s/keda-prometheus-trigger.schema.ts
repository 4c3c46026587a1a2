import { z } from 'zod';

/*
 * The `metadata` of a KEDA `prometheus` trigger. KEDA's ScaledObject CRD (and
 * @kubernetes-models/keda) types it only as a map of strings, and the scaler ignores a key it does
 * not know, so a misspelt `activationTreshold` would be dropped without a word. Written from
 * kedacore/keda-docs content/docs/2.18/scalers/prometheus.md @ 7087b1de8024eadb277eb95cdd21c428b5d47059
 * (the parameter list): every value is a string, numbers included, as the CRD requires.
 */

const Decimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'a decimal number, as a string');
const Flag = z.enum(['true', 'false']);

export const KedaPrometheusTriggerMetadataSchema = z.strictObject({
  serverAddress: z.url({ protocol: /^https?$/ }),
  /** Must return one element (a vector of one sample, or a scalar). */
  query: z.string().min(1),
  /** The target per replica (AverageValue) or in all (Value). */
  threshold: Decimal.refine((v) => Number(v) > 0, 'above 0'),
  /** Scale from/to zero above this value; KEDA's default 0. */
  activationThreshold: Decimal.optional(),
  namespace: z.string().min(1).optional(),
  customHeaders: z.string().min(1).optional(),
  ignoreNullValues: Flag.optional(),
  queryParameters: z.string().min(1).optional(),
  unsafeSsl: Flag.optional(),
  /** Milliseconds, this trigger's HTTP timeout. */
  timeout: z.string().regex(/^\d+$/).optional(),
  authModes: z.string().min(1).optional(),
});
