import { UTILIZATION_DETECTOR, type ScorerName } from '@sluice/policies';
import { translateFlowControl } from './epp-flow-control.translate.js';
import { PluginIndex, type EppPlugin } from './epp-plugin-index.js';
import { Problems, at, checkFields, isMapping, listAt, setIn, type Tree } from './yaml-walk.js';

/*
 * An EndpointPickerConfig (the Endpoint Picker's own config file,
 * apix/config/v1alpha1/endpointpickerconfig_types.go at
 * kubernetes-sigs/gateway-api-inference-extension@1748e829d1161147aaf35e76699ec86fd88406d2) into a
 * sluice.yaml fragment. Pure: a parsed YAML document in, the fragment, what was mapped and what
 * was refused out. Nothing is dropped: a field, plugin or parameter sluice cannot honour is a
 * refusal naming its path. The table of what maps where is docs/endpoint-picker-config.md.
 */

export const EPP_API_VERSION = 'inference.networking.x-k8s.io/v1alpha1';
export const EPP_KIND = 'EndpointPickerConfig';
/** The Endpoint Picker's feature gate for flow control (pkg/epp/flowcontrol/config.go). */
const FLOW_CONTROL_GATE = 'flowControl';
/** A scorer's weight when its profile entry gives none (`DefaultScorerWeight`, loader/defaults.go). */
const DEFAULT_SCORER_WEIGHT = 1;

export interface EppTranslation {
  /** The sluice.yaml fragment, in the file's shape. */
  readonly fragment: Tree;
  /** One line per thing mapped, `EPP path → sluice key`. */
  readonly mapped: readonly string[];
  /** One line per thing refused, `EPP path: why`; empty when everything maps. */
  readonly problems: readonly string[];
}

const TOP_LEVEL = ['apiVersion', 'kind', 'featureGates', 'plugins', 'schedulingProfiles', 'saturationDetector', 'dataLayer', 'flowControl', 'parser'];

export function translateEndpointPickerConfig(doc: unknown): EppTranslation {
  const problems = new Problems();
  const mapped: string[] = [];
  const fragment: Tree = {};
  if (!isMapping(doc)) {
    problems.add('', `must be an ${EPP_KIND} mapping`);
    return { fragment, mapped, problems: problems.lines };
  }
  checkFields(doc, TOP_LEVEL, '', EPP_KIND, problems);
  if ('apiVersion' in doc && doc['apiVersion'] !== EPP_API_VERSION) problems.add('apiVersion', `${JSON.stringify(doc['apiVersion'])} is not ${EPP_API_VERSION}`);
  if ('kind' in doc && doc['kind'] !== EPP_KIND) problems.add('kind', `${JSON.stringify(doc['kind'])} is not ${EPP_KIND}`);

  const flowControlGate = readFeatureGates(doc['featureGates'], problems, mapped);
  const plugins = new PluginIndex(doc['plugins'], problems);

  translateProfiles(doc['schedulingProfiles'], plugins, fragment, problems, mapped);
  translateSaturationDetector(doc['saturationDetector'], plugins, fragment, problems, mapped);
  for (const plugin of plugins.all()) {
    // Data-layer, parser and profile-handler plugins are used by being listed (the EPP wires them itself).
    if (['data-layer', 'parser', 'profile-handler'].includes(plugin.row.kind)) plugins.markUsed(plugin.name);
  }
  checkDataLayer(doc['dataLayer'], plugins, problems);
  checkParser(doc['parser'], plugins, problems);

  // Without its gate the EPP runs no queues: saturation sheds sheddable requests (sluice's flowController.enabled false).
  setIn(fragment, ['flowController', 'enabled'], flowControlGate);
  mapped.push(`featureGates ${flowControlGate ? 'has' : 'lacks'} ${FLOW_CONTROL_GATE} → flowController.enabled: ${flowControlGate}`);
  if ('flowControl' in doc) {
    if (!flowControlGate) problems.add('flowControl', `takes effect only with the "${FLOW_CONTROL_GATE}" feature gate (the Endpoint Picker ignores it without); add it to featureGates`);
    else for (const [key, value] of Object.entries(translateFlowControl(doc['flowControl'], plugins, problems, mapped))) setIn(fragment, ['flowController', key], value);
  }
  for (const plugin of plugins.all()) {
    if (plugin.name === 'global-strict-fairness-policy' || plugin.name === 'fcfs-ordering-policy') continue; // a band's default ref
    if (!plugins.isUsed(plugin.name)) problems.add(plugin.path, `"${plugin.name}" (${plugin.type}) is referenced by nothing, so it would change nothing`);
  }
  for (const plugin of plugins.all()) if (plugins.isUsed(plugin.name)) mapped.push(`${plugin.path} ${plugin.type} → ${plugin.row.sluice}`);
  return { fragment, mapped, problems: problems.lines };
}

function readFeatureGates(value: unknown, problems: Problems, mapped: string[]): boolean {
  let flowControl = false;
  listAt(value, 'featureGates', problems).forEach((gate, i) => {
    const path = at('featureGates', i);
    if (gate === FLOW_CONTROL_GATE) flowControl = true;
    // pkg/epp/datalayer/factory.go: the data layer is on by default now; sluice's always is.
    else if (gate === 'dataLayer') mapped.push(`${path} dataLayer → always on in sluice`);
    else if (gate === 'enableLegacyMetrics') problems.add(path, "\"enableLegacyMetrics\" is not supported: sluice's workers push their signals, there are no scraped metric names to choose");
    else problems.add(path, `${JSON.stringify(gate)} is not a feature gate sluice has (known: ${FLOW_CONTROL_GATE}, dataLayer)`);
  });
  return flowControl;
}

/**
 * One scheduling profile of scorers and at most one picker, into the weighted policy's weights.
 * With no profile the EPP makes one of every scorer and picker listed (`ensureSchedulingLayer`, loader/defaults.go).
 */
function translateProfiles(value: unknown, plugins: PluginIndex, fragment: Tree, problems: Problems, mapped: string[]): void {
  const profiles = listAt(value, 'schedulingProfiles', problems);
  profiles.slice(1).forEach((_, i) => problems.add(at('schedulingProfiles', i + 1), "is not supported: sluice runs one scheduling profile per request (prefill/decode profiles are router.disaggregation's)"));
  const profile: unknown = profiles[0] ?? {
    name: 'default',
    plugins: plugins.all().filter((p) => p.row.kind === 'scorer' || p.row.kind === 'picker').map((p) => ({ pluginRef: p.name })),
  };
  const path = at('schedulingProfiles', 0);
  if (!isMapping(profile)) return problems.add(path, 'must be a mapping with name and plugins');
  checkFields(profile, ['name', 'plugins'], path, 'a scheduling profile', problems);
  const weights: Partial<Record<ScorerName, number>> = {};
  let picker: EppPlugin | undefined;
  listAt(profile['plugins'], at(path, 'plugins'), problems).forEach((entry, j) => {
    const entryPath = at(at(path, 'plugins'), j);
    if (!isMapping(entry)) return problems.add(entryPath, 'must be a mapping with pluginRef');
    checkFields(entry, ['pluginRef', 'weight'], entryPath, 'a profile entry', problems);
    const plugin = plugins.ref(entry['pluginRef'], ['scorer', 'picker'], at(entryPath, 'pluginRef'), problems);
    if (plugin === undefined) return;
    if (plugin.row.kind === 'picker') {
      if (entry['weight'] !== undefined) problems.add(at(entryPath, 'weight'), 'a picker has no weight');
      if (picker !== undefined) problems.add(entryPath, `a second picker: the profile already has "${picker.name}"`);
      picker = plugin;
      return;
    }
    const scorer = plugin.row.scorer!;
    const weight = entry['weight'] ?? DEFAULT_SCORER_WEIGHT;
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) return problems.add(at(entryPath, 'weight'), 'must be a non-negative number');
    if (scorer in weights) return problems.add(entryPath, `a second ${plugin.type}: sluice has one ${scorer} scorer per profile`);
    weights[scorer] = weight;
  });
  if (!Object.values(weights).some((w) => w > 0)) {
    problems.add(at(path, 'plugins'), 'needs a scorer with a positive weight: sluice routes by the weighted sum of its scorers');
    return;
  }
  setIn(fragment, ['router', 'policy'], 'weighted');
  setIn(fragment, ['router', 'policies', 'weighted', 'weights'], weights);
  mapped.push(`${path} → router.policy: weighted, weights ${Object.entries(weights).map(([s, w]) => `${s}:${w}`).join(',')}`);
}

/** `saturationDetector.pluginRef` (default: the plugin named utilization-detector, else the built-in one). */
function translateSaturationDetector(value: unknown, plugins: PluginIndex, fragment: Tree, problems: Problems, mapped: string[]): void {
  const section = value ?? {};
  if (!isMapping(section)) return problems.add('saturationDetector', 'must be a mapping with pluginRef');
  checkFields(section, ['pluginRef'], 'saturationDetector', 'saturationDetector (thresholds are the detector plugin\'s parameters)', problems);
  const explicit = section['pluginRef'] !== undefined;
  const ref = section['pluginRef'] ?? UTILIZATION_DETECTOR;
  const listed = plugins.all().some((p) => p.name === ref);
  if (!explicit && !listed) return; // the built-in detector with its defaults, sluice's default too
  const plugin = plugins.ref(ref, ['saturation-detector'], 'saturationDetector.pluginRef', problems);
  if (plugin === undefined) return;
  setIn(fragment, ['flowController', 'saturationDetector'], { type: plugin.row.policy, parameters: plugin.parameters });
  mapped.push(`saturationDetector → flowController.saturationDetector: ${plugin.row.policy}`);
}

/** `parser.pluginRef`: the OpenAI parser, listed or the built-in default (`ensureParser`, loader/defaults.go). */
function checkParser(value: unknown, plugins: PluginIndex, problems: Problems): void {
  if (value === undefined || value === null) return;
  if (!isMapping(value)) return problems.add('parser', 'must be a mapping with pluginRef');
  checkFields(value, ['pluginRef'], 'parser', 'parser', problems);
  const ref = value['pluginRef'];
  if (ref === 'openai-parser' && !plugins.all().some((p) => p.name === ref)) return;
  plugins.ref(ref, ['parser'], 'parser.pluginRef', problems);
}

/** `dataLayer` refs: checked to name data-layer plugins (sluice's workers push what they would read). */
function checkDataLayer(dataLayer: unknown, plugins: PluginIndex, problems: Problems): void {
  if (dataLayer === undefined || dataLayer === null) return;
  if (!isMapping(dataLayer)) return problems.add('dataLayer', 'must be a mapping with sources');
  checkFields(dataLayer, ['sources'], 'dataLayer', 'dataLayer', problems);
  listAt(dataLayer['sources'], 'dataLayer.sources', problems).forEach((source, i) => {
    const path = at('dataLayer.sources', i);
    if (!isMapping(source)) return problems.add(path, 'must be a mapping with pluginRef and extractors');
    checkFields(source, ['pluginRef', 'extractors'], path, 'a data source', problems);
    plugins.ref(source['pluginRef'], ['data-layer'], at(path, 'pluginRef'), problems);
    listAt(source['extractors'], at(path, 'extractors'), problems).forEach((extractor, j) => {
      const extractorPath = at(at(path, 'extractors'), j);
      if (!isMapping(extractor)) return problems.add(extractorPath, 'must be a mapping with pluginRef');
      checkFields(extractor, ['pluginRef'], extractorPath, 'an extractor', problems);
      plugins.ref(extractor['pluginRef'], ['data-layer'], at(extractorPath, 'pluginRef'), problems);
    });
  });
}
