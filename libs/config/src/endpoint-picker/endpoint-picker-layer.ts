import { readFileSync } from 'node:fs';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { ConfigError } from '../config.error.js';
import { translateEndpointPickerConfig } from './epp-config.translate.js';
import { translateInferenceObjects } from './inference-objects.translate.js';
import { isMapping, setIn, type Tree } from './yaml-walk.js';

/*
 * The Endpoint Picker's files as a layer of sluice's config: defaults < (the EndpointPickerConfig
 * and the InferencePool/InferenceObjective objects, side by side with sluice.yaml) < SLUICE_* env
 * < flags. A key set both by one of these files and by sluice.yaml is refused, naming both: two
 * documents the user wrote disagree, and neither should win in silence. Env and flags override
 * both, as they override sluice.yaml. `inferenceObjectives` is the one list that adds up: the
 * objects' objectives follow sluice.yaml's (a name in both is refused by the schema).
 */

/** The config keys naming the files (also `--epp-config`, `--inference-objectives`, SLUICE_EPP_CONFIG, SLUICE_INFERENCE_OBJECTIVES_FILE). */
export const EPP_CONFIG_KEY = 'eppConfig';
export const INFERENCE_OBJECTIVES_FILE_KEY = 'inferenceObjectivesFile';

export interface EndpointPickerFiles {
  readonly eppConfig?: string;
  readonly inferenceObjectivesFile?: string;
}

export interface EndpointPickerLayer {
  readonly fragment: Tree;
  /** What each file's content became, `FILE: EPP path → sluice key`. */
  readonly mapped: readonly string[];
}

function readText(key: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`${key}: cannot read ${file}: ${(error as Error).message}`], { cause: error });
  }
}

function readDocuments(key: string, file: string, many: boolean): unknown[] {
  const text = readText(key, file);
  try {
    if (!many) return [parseYaml(text)];
    return parseAllDocuments(text).map((doc) => {
      if (doc.errors.length > 0) throw doc.errors[0]!;
      return doc.toJS() as unknown;
    });
  } catch (error) {
    throw new ConfigError([`${key}: ${file} is not valid YAML: ${(error as Error).message}`], { cause: error });
  }
}

/** Reads and translates the files; a ConfigError lists every refusal, each `key FILE: path: why`. */
export function readEndpointPickerLayer(files: EndpointPickerFiles): EndpointPickerLayer {
  const fragment: Tree = {};
  const mapped: string[] = [];
  const problems: string[] = [];
  const add = (key: string, file: string, translation: { fragment: Tree; mapped: readonly string[]; problems: readonly string[] }) => {
    problems.push(...translation.problems.map((p) => `${key} ${file}: ${p}`));
    mapped.push(...translation.mapped.map((m) => `${file}: ${m}`));
    for (const [path, value] of leaves(translation.fragment)) setIn(fragment, path, value);
  };
  if (files.eppConfig !== undefined) add(EPP_CONFIG_KEY, files.eppConfig, translateEndpointPickerConfig(readDocuments(EPP_CONFIG_KEY, files.eppConfig, false)[0]));
  if (files.inferenceObjectivesFile !== undefined) {
    const file = files.inferenceObjectivesFile;
    add(INFERENCE_OBJECTIVES_FILE_KEY, file, translateInferenceObjects(readDocuments(INFERENCE_OBJECTIVES_FILE_KEY, file, true)));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { fragment, mapped };
}

/** Every leaf of a fragment: a scalar, a list or a weights map (set whole), with its key path. */
function leaves(tree: Tree, prefix: readonly string[] = []): [string[], unknown][] {
  return Object.entries(tree).flatMap(([key, value]): [string[], unknown][] => {
    const path = [...prefix, key];
    return isMapping(value) && key !== 'weights' && key !== 'parameters' ? leaves(value, path) : [[path, value]];
  });
}

function valueAt(tree: Tree, path: readonly string[]): unknown {
  let node: unknown = tree;
  for (const key of path) node = isMapping(node) ? node[key] : undefined;
  return node;
}

/** Puts the layer under sluice.yaml's tree (mutated), refusing a key both set. */
export function mergeEndpointPickerLayer(fileTree: Tree, layer: EndpointPickerLayer): void {
  const conflicts: string[] = [];
  for (const [path, value] of leaves(layer.fragment)) {
    const key = path.join('.');
    const own = valueAt(fileTree, path);
    if (key === 'inferenceObjectives' && Array.isArray(own)) {
      fileTree['inferenceObjectives'] = [...(own as unknown[]), ...(value as unknown[])];
      continue;
    }
    if (own !== undefined) {
      conflicts.push(`${key}: set by sluice.yaml (${JSON.stringify(own)}) and by the Endpoint Picker's files (${JSON.stringify(value)}); keep one`);
      continue;
    }
    setIn(fileTree, path, value);
  }
  if (conflicts.length > 0) throw new ConfigError(conflicts);
}
