import { z } from 'zod';
import { KV_TRANSFER_PROFILE_NAMES, KvTransferModelSchema, type KvTransferProfileName } from '@sluice/engine';

/**
 * Disaggregated prefill/decode (docs/behaviour.md §1): which instances prefill and which decode
 * (`worker.roles`), the link between them (`worker.kvTransfer`), and how the router decides where
 * a prompt is prefilled (`router.disaggregation`). The two sections only work together, so each is
 * refused without the other (`checkDisaggregation`).
 */

/** Per worker process: the first `prefill` ranks prefill, the next `decode` ranks decode, the rest do both. */
export const WorkerRolesSchema = z
  .strictObject({
    prefill: z.number().int().nonnegative().default(0),
    decode: z.number().int().nonnegative().default(0),
  })
  .refine((roles) => roles.prefill + roles.decode > 0, { message: 'name at least one prefill or decode instance (all-`both` is the aggregated default: leave worker.roles out)' });

/** A named link profile (`nixl`, `tcp`) or its three numbers. */
export const KvTransferLinkSchema = z.union([z.enum(KV_TRANSFER_PROFILE_NAMES as unknown as readonly [KvTransferProfileName, ...KvTransferProfileName[]]), KvTransferModelSchema]);

/**
 * Where a prompt is prefilled (libs/stages `routing/pd-decider.ts`): `dynamo` remote when the
 * prompt tokens the decode instance lacks exceed `maxLocalPrefillLength`; `llm-d` when they reach
 * `nonCachedTokens` (every request at 0); `always` remote.
 */
export const RouterDisaggregationSchema = z.discriminatedUnion('decider', [
  z.strictObject({ decider: z.literal('dynamo'), maxLocalPrefillLength: z.number().int().nonnegative() }),
  z.strictObject({ decider: z.literal('llm-d'), nonCachedTokens: z.number().int().nonnegative() }),
  z.strictObject({ decider: z.literal('always') }),
]);
export type RouterDisaggregation = z.infer<typeof RouterDisaggregationSchema>;

interface DisaggregationKeys {
  readonly router: { readonly disaggregation?: RouterDisaggregation | undefined };
  readonly worker: { readonly instances: number; readonly compat: string; readonly roles?: { readonly prefill: number; readonly decode: number } | undefined; readonly kvTransfer?: unknown };
}

/** Refuses a half-configured deployment, each time naming the key that would change nothing or break it. */
export function checkDisaggregation(config: DisaggregationKeys, ctx: z.RefinementCtx): void {
  const { roles, kvTransfer, instances, compat } = config.worker;
  const routed = config.router.disaggregation !== undefined;
  if (routed && !roles) ctx.addIssue({ code: 'custom', path: ['router', 'disaggregation'], message: 'no worker has a prefill or decode instance (worker.roles): nothing to disaggregate' });
  if (roles && !routed) ctx.addIssue({ code: 'custom', path: ['worker', 'roles'], message: 'the router would send requests to prefill-only and decode-only instances as if they did both: set router.disaggregation' });
  if (kvTransfer !== undefined && !roles) ctx.addIssue({ code: 'custom', path: ['worker', 'kvTransfer'], message: 'takes effect only with worker.roles (no KV transfer in an aggregated deployment)' });
  if (!roles) return;
  if (roles.prefill + roles.decode > instances) ctx.addIssue({ code: 'custom', path: ['worker', 'roles'], message: `${roles.prefill} prefill + ${roles.decode} decode instances is more than worker.instances (${instances})` });
  if (roles.prefill === 0 && roles.decode === instances) ctx.addIssue({ code: 'custom', path: ['worker', 'roles'], message: 'every instance decodes only and none prefills: name some prefill instances' });
  if (roles.decode === 0 && roles.prefill === instances) ctx.addIssue({ code: 'custom', path: ['worker', 'roles'], message: 'every instance prefills only and none decodes: every request would end no_worker; name some decode instances' });
  if (compat === 'blis') ctx.addIssue({ code: 'custom', path: ['worker', 'roles'], message: 'BLIS parity mode (worker.compat: blis) has no disaggregated prefill/decode' });
}
