import { CONCURRENCY_DETECTOR, SATURATION_DETECTOR_PARAMS, UTILIZATION_DETECTOR } from '@sluice/policies';
import { type Problems, at, type Tree } from './yaml-walk.js';

/*
 * Each supported plugin's `parameters`, read into sluice's (a saturation detector's) or checked
 * to mean what sluice does anyway. A parameter sluice has no place for is refused by its path,
 * never dropped. The Endpoint Picker's names and defaults are from its source at
 * kubernetes-sigs/gateway-api-inference-extension@1748e829d1161147aaf35e76699ec86fd88406d2, files
 * named per reader.
 */

type Reader = (params: Tree, path: string, problems: Problems) => Tree;

const noParameters = (why: string): Reader => (params, path, problems) => {
  for (const key of Object.keys(params)) problems.add(at(path, key), `is not supported: ${why}`);
  return {};
};

/** Accepts a parameter only at the value that means what sluice does. */
function onlyValue(params: Tree, path: string, problems: Problems, key: string, allowed: unknown, why: string): void {
  if (key in params && params[key] !== allowed) problems.add(at(path, key), `${JSON.stringify(params[key])} is not supported: ${why} (only ${JSON.stringify(allowed)})`);
}

function refuseOthers(params: Tree, path: string, problems: Problems, known: readonly string[], why: string): void {
  for (const key of Object.keys(params)) if (!known.includes(key)) problems.add(at(path, key), `is not supported: ${why}`);
}

/** Checks the translated parameters with sluice's own detector schema, so a bad value names the EPP path. */
function checkWith(type: typeof UTILIZATION_DETECTOR | typeof CONCURRENCY_DETECTOR, params: Tree, path: string, problems: Problems): Tree {
  const result = SATURATION_DETECTOR_PARAMS[type].safeParse(params);
  if (!result.success) for (const issue of result.error.issues) problems.add(at(path, issue.path.join('.')), issue.message);
  return params;
}

/** saturationdetector/utilization/config.go: queueDepthThreshold 5, kvCacheUtilThreshold 0.8, metricsStalenessThreshold 200ms, headroom 0. */
const utilization: Reader = (params, path, problems) => {
  onlyValue(params, path, problems, 'headroom', 0, "sluice's utilization detector allows no burst above its thresholds");
  refuseOthers(params, path, problems, ['queueDepthThreshold', 'kvCacheUtilThreshold', 'metricsStalenessThreshold', 'headroom'], 'not a parameter of the utilization detector');
  const { headroom: _headroom, ...rest } = params;
  return checkWith(UTILIZATION_DETECTOR, rest, path, problems);
};

/**
 * saturationdetector/concurrency/config.go: maxConcurrency 100 (requests mode), maxTokenConcurrency
 * 1,000,000 (tokens mode), headroom 0. sluice's detector has one limit for both modes, so the mode
 * chooses which of the two becomes `maxConcurrency`; the other would change nothing and is refused.
 */
const concurrency: Reader = (params, path, problems) => {
  refuseOthers(params, path, problems, ['concurrencyMode', 'maxConcurrency', 'maxTokenConcurrency', 'headroom'], 'not a parameter of the concurrency detector');
  const tokens = params['concurrencyMode'] === 'tokens';
  const unused = tokens ? 'maxConcurrency' : 'maxTokenConcurrency';
  if (unused in params) problems.add(at(path, unused), `takes effect only in ${tokens ? 'requests' : 'tokens'} mode (concurrencyMode is ${tokens ? 'tokens' : 'requests'})`);
  const out: Tree = {};
  if ('concurrencyMode' in params) out['concurrencyMode'] = params['concurrencyMode'];
  if ('headroom' in params) out['headroom'] = params['headroom'];
  out['maxConcurrency'] = tokens ? (params['maxTokenConcurrency'] ?? 1_000_000) : (params['maxConcurrency'] ?? 100);
  return checkWith(CONCURRENCY_DETECTOR, out, path, problems);
};

/** picker/maxscore/picker.go and picker/picker.go: maxNumOfEndpoints, default 1. */
const maxScorePicker: Reader = (params, path, problems) => {
  onlyValue(params, path, problems, 'maxNumOfEndpoints', 1, 'a sluice request goes to one instance, with no fallback endpoints');
  refuseOthers(params, path, problems, ['maxNumOfEndpoints'], 'not a parameter of the max-score picker');
  return {};
};

/** datalayer/source/metrics/datasource.go: scheme http, path /metrics, insecureSkipVerify true. */
const metricsDataSource: Reader = (params, path, problems) => {
  const why = "sluice's workers push their signals over NATS instead of being scraped";
  onlyValue(params, path, problems, 'scheme', 'http', why);
  onlyValue(params, path, problems, 'path', '/metrics', why);
  // Without TLS (scheme http) the EPP itself reads no certificate either way.
  if ('insecureSkipVerify' in params && typeof params['insecureSkipVerify'] !== 'boolean') problems.add(at(path, 'insecureSkipVerify'), 'must be true or false');
  refuseOthers(params, path, problems, ['scheme', 'path', 'insecureSkipVerify'], 'not a parameter of the metrics data source');
  return {};
};

/** datalayer/extractor/metrics/factories.go: the engine whose metric names are read; sluice's workers are vLLM-like. */
const coreMetricsExtractor: Reader = (params, path, problems) => {
  onlyValue(params, path, problems, 'defaultEngine', 'vllm', "sluice's workers report vLLM's signals");
  refuseOthers(params, path, problems, ['defaultEngine'], "sluice's workers report fixed signals: there are no metric names to map");
  return {};
};

const READERS: Readonly<Record<string, Reader>> = {
  [UTILIZATION_DETECTOR]: utilization,
  [CONCURRENCY_DETECTOR]: concurrency,
  'max-score-picker': maxScorePicker,
  'metrics-data-source': metricsDataSource,
  'core-metrics-extractor': coreMetricsExtractor,
  'approx-prefix-cache-producer': noParameters("sluice's prefix index has fixed 16-token blocks and no per-server capacity to set"),
};

/** Reads a supported plugin's parameters; a type with no reader takes none. */
export function readPluginParameters(type: string, params: Tree, path: string, problems: Problems): Tree {
  const reader = READERS[type] ?? noParameters(`"${type}" takes no parameters in sluice`);
  return reader(params, path, problems);
}
