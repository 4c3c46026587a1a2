import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { describeZodError } from '@sluice/contracts';
import { parseCommandLine } from './command-line.js';
import { ConfigError } from './config.error.js';
import { ConfigSchema, type SluiceConfig } from './config.schema.js';
import { EPP_CONFIG_KEY, INFERENCE_OBJECTIVES_FILE_KEY, mergeEndpointPickerLayer, readEndpointPickerLayer } from './endpoint-picker/endpoint-picker-layer.js';

export const ENV_PREFIX = 'SLUICE_';
/** `SLUICE_CONFIG` names the file; it is not itself a key. */
export const CONFIG_FILE_ENV = 'SLUICE_CONFIG';

export interface ConfigSources {
  /** Path of a sluice.yaml; also taken from `--config FILE` in argv or SLUICE_CONFIG. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Flags: `--config FILE`, `--gateway.port=8081` or `--gateway.port 8081`; anything else is a ConfigError. */
  argv?: readonly string[];
}

type Tree = Record<string, unknown>;

function camelFromScreaming(segment: string): string {
  return segment.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A flag or env value is YAML, so `8081`, `true` and `[a, b]` keep their types. */
function parseScalar(raw: string): unknown {
  try {
    return parseYaml(raw) ?? raw;
  } catch {
    return raw;
  }
}

function setPath(tree: Tree, path: readonly string[], value: unknown): void {
  let node = tree;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Tree;
  });
}

function readFileTree(file: string): Tree {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`cannot read config file ${file}: ${(error as Error).message}`], { cause: error });
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new ConfigError([`${file} is not valid YAML: ${(error as Error).message}`], { cause: error });
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError([`${file}: the top level must be a mapping of keys`]);
  }
  return doc as Tree;
}

/** Resolves defaults < file < env < flags into one validated config, or throws ConfigError. */
export function loadConfig(sources: ConfigSources = {}): SluiceConfig {
  const env = sources.env ?? {};
  // The same reading of flags as every command's (config flags only: a service takes nothing else).
  const flags = parseCommandLine(sources.argv ?? []);
  if (flags.problems.length > 0) throw new ConfigError(flags.problems);
  const file = flags.configFile ?? sources.file ?? env[CONFIG_FILE_ENV];
  const tree: Tree = file ? readFileTree(file) : {};
  // The Endpoint Picker's files sit beside sluice.yaml, under env and flags (endpoint-picker-layer.ts).
  const layerFile = (key: string): string | undefined => {
    const named = flags.files.get(key) ?? env[`${ENV_PREFIX}${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`] ?? tree[key];
    return typeof named === 'string' && named !== '' ? named : undefined;
  };
  const eppConfig = layerFile(EPP_CONFIG_KEY);
  const inferenceObjectivesFile = layerFile(INFERENCE_OBJECTIVES_FILE_KEY);
  if (eppConfig !== undefined || inferenceObjectivesFile !== undefined) {
    mergeEndpointPickerLayer(tree, readEndpointPickerLayer({ ...(eppConfig === undefined ? {} : { eppConfig }), ...(inferenceObjectivesFile === undefined ? {} : { inferenceObjectivesFile }) }));
  }

  if (env.NATS_URL) setPath(tree, ['nats', 'url'], env.NATS_URL);
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || name === CONFIG_FILE_ENV || raw === undefined) continue;
    // SLUICE_FLOW_CONTROLLER__PORT → flowController.port
    setPath(tree, name.slice(ENV_PREFIX.length).split('__').map(camelFromScreaming), parseScalar(raw));
  }
  for (const { path, text } of flags.overrides) setPath(tree, path, parseScalar(text));
  for (const [key, named] of flags.files) tree[key] = named;

  const result = ConfigSchema.safeParse(tree);
  if (!result.success) throw new ConfigError(describeZodError(result.error));
  checkCrossReferences(result.data);
  return result.data;
}

/** Rules one field's schema cannot see. */
function checkCrossReferences(config: SluiceConfig): void {
  const models = config.models.map((m) => m.name);
  if (!models.includes(config.worker.model)) {
    throw new ConfigError([`worker.model: "${config.worker.model}" is not a configured model; allowed: ${models.join(', ')}`]);
  }
}
