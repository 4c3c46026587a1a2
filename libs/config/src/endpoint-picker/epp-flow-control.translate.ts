import { DurationSchema, QuantitySchema } from '@sluice/contracts';
import type { PluginIndex } from './epp-plugin-index.js';
import { type Problems, at, checkFields, isMapping, listAt, type Tree } from './yaml-walk.js';

/*
 * The EndpointPickerConfig's `flowControl` section (FlowControlConfig in
 * apix/config/v1alpha1/endpointpickerconfig_types.go at
 * kubernetes-sigs/gateway-api-inference-extension@1748e829d1161147aaf35e76699ec86fd88406d2) into
 * `flowController`: sluice's section has the same fields, the same quantity and duration forms
 * and the same policy names, so this is mostly a check that each ref names a policy sluice has.
 */

const BAND_FIELDS = ['maxBytes', 'maxRequests', 'fairnessPolicyRef', 'orderingPolicyRef'] as const;

function quantity(value: unknown, path: string, problems: Problems): unknown {
  const result = QuantitySchema.safeParse(value);
  if (!result.success) problems.add(path, result.error.issues[0]?.message ?? 'must be a quantity such as 100, 1k or 1Gi');
  return value;
}

function band(value: unknown, path: string, withPriority: boolean, plugins: PluginIndex, problems: Problems): Tree {
  if (!isMapping(value)) {
    problems.add(path, 'must be a mapping');
    return {};
  }
  checkFields(value, withPriority ? ['priority', ...BAND_FIELDS] : BAND_FIELDS, path, 'a priority band', problems);
  const out: Tree = {};
  if (withPriority) {
    if (!Number.isInteger(value['priority'])) problems.add(at(path, 'priority'), 'must be an integer');
    out['priority'] = value['priority'];
  }
  for (const key of ['maxBytes', 'maxRequests'] as const) if (key in value) out[key] = quantity(value[key], at(path, key), problems);
  if ('fairnessPolicyRef' in value) out['fairnessPolicyRef'] = plugins.policyRef(value['fairnessPolicyRef'], 'fairness', at(path, 'fairnessPolicyRef'), problems);
  if ('orderingPolicyRef' in value) out['orderingPolicyRef'] = plugins.policyRef(value['orderingPolicyRef'], 'ordering', at(path, 'orderingPolicyRef'), problems);
  return out;
}

/** `flowControl` into `flowController`'s fields; the caller has checked the feature gate. */
export function translateFlowControl(section: unknown, plugins: PluginIndex, problems: Problems, mapped: string[]): Tree {
  const path = 'flowControl';
  if (!isMapping(section)) {
    problems.add(path, 'must be a mapping');
    return {};
  }
  checkFields(section, ['maxBytes', 'maxRequests', 'defaultRequestTTL', 'defaultPriorityBand', 'priorityBands', 'usageLimitPolicyPluginRef'], path, 'flowControl', problems);
  if ('usageLimitPolicyPluginRef' in section) {
    problems.add(at(path, 'usageLimitPolicyPluginRef'), "is not supported: sluice's flow control has no usage-limit policy (the saturation detector alone gates dispatch)");
  }
  const out: Tree = {};
  for (const key of ['maxBytes', 'maxRequests'] as const) if (key in section) out[key] = quantity(section[key], at(path, key), problems);
  if ('defaultRequestTTL' in section) {
    const ttl = DurationSchema.safeParse(section['defaultRequestTTL']);
    if (!ttl.success) problems.add(at(path, 'defaultRequestTTL'), ttl.error.issues[0]?.message ?? 'must be a duration such as 30s');
    out['defaultRequestTTL'] = section['defaultRequestTTL'];
  }
  if ('defaultPriorityBand' in section) out['defaultPriorityBand'] = band(section['defaultPriorityBand'], at(path, 'defaultPriorityBand'), false, plugins, problems);
  if ('priorityBands' in section) {
    out['priorityBands'] = listAt(section['priorityBands'], at(path, 'priorityBands'), problems).map((b, i) => band(b, at(at(path, 'priorityBands'), i), true, plugins, problems));
  }
  for (const key of Object.keys(out)) mapped.push(`flowControl.${key} → flowController.${key}`);
  return out;
}
