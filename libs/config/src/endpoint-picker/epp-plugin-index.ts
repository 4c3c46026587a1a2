import { EPP_PLUGINS, SUPPORTED_EPP_PLUGIN_TYPES, type EppPluginKind, type EppPluginRow } from './epp-plugins.js';
import { readPluginParameters } from './epp-plugin-parameters.js';
import { type Problems, at, checkFields, isMapping, listAt, type Tree } from './yaml-walk.js';

type SupportedRow = Extract<EppPluginRow, { supported: true }>;

/** One entry of `plugins`, read: its place in the file, its type's row and its parameters in sluice's terms. */
export interface EppPlugin {
  readonly path: string;
  readonly name: string;
  readonly type: string;
  readonly row: SupportedRow;
  readonly parameters: Tree;
}

/**
 * The `plugins` list by name (a plugin's name defaults to its type: `applyStaticDefaults` in
 * pkg/epp/config/loader/defaults.go at
 * kubernetes-sigs/gateway-api-inference-extension@1748e829d1161147aaf35e76699ec86fd88406d2), with
 * which entries something references, so one that would change nothing can be refused.
 */
export class PluginIndex {
  private readonly byName = new Map<string, EppPlugin>();
  private readonly used = new Set<string>();
  /** Names of entries already refused, so a ref to one is not refused a second time. */
  private readonly refused = new Set<string>();

  constructor(list: unknown, problems: Problems) {
    listAt(list, 'plugins', problems).forEach((entry, i) => this.read(entry, at('plugins', i), problems));
  }

  private read(entry: unknown, path: string, problems: Problems): void {
    if (!isMapping(entry)) return problems.add(path, 'must be a mapping with a type');
    checkFields(entry, ['name', 'type', 'parameters'], path, 'a plugin', problems);
    const type = entry['type'];
    if (typeof type !== 'string' || type === '') return problems.add(at(path, 'type'), 'is required: the plugin type');
    const row = EPP_PLUGINS[type];
    if (row === undefined || !row.supported) this.refused.add(typeof entry['name'] === 'string' ? entry['name'] : type);
    if (row === undefined) return problems.add(at(path, 'type'), `"${type}" is not a plugin type sluice knows; supported: ${SUPPORTED_EPP_PLUGIN_TYPES.join(', ')}`);
    if (!row.supported) return problems.add(at(path, 'type'), `"${type}" is not supported: ${row.reason}`);
    const name = entry['name'] ?? type;
    if (typeof name !== 'string' || name === '') return problems.add(at(path, 'name'), 'must be a non-empty string');
    if (this.byName.has(name)) return problems.add(at(path, 'name'), `"${name}" is already the name of ${this.byName.get(name)?.path}`);
    const raw = entry['parameters'] ?? {};
    if (!isMapping(raw)) return problems.add(at(path, 'parameters'), 'must be a mapping');
    const parameters = readPluginParameters(type, raw, at(path, 'parameters'), problems);
    this.byName.set(name, { path, name, type, row, parameters });
  }

  all(): EppPlugin[] {
    return [...this.byName.values()];
  }

  /** The plugin a ref names, marked used; a refusal at `path` when there is none or it is of another kind. */
  ref(ref: unknown, kinds: readonly EppPluginKind[], path: string, problems: Problems): EppPlugin | undefined {
    if (typeof ref !== 'string' || ref === '') {
      problems.add(path, 'must name a plugin');
      return undefined;
    }
    const plugin = this.byName.get(ref);
    if (plugin === undefined && this.refused.has(ref)) return undefined;
    if (plugin === undefined) {
      problems.add(path, `"${ref}" is not the name of an entry of plugins`);
      return undefined;
    }
    if (!kinds.includes(plugin.row.kind)) {
      problems.add(path, `"${ref}" is a ${plugin.row.kind} (${plugin.type}), not a ${kinds.join(' or ')}`);
      return undefined;
    }
    this.used.add(ref);
    return plugin;
  }

  /**
   * A flow-control policy ref: a plugin's name, or a built-in type name, which the Endpoint Picker
   * registers on its own when no plugin of that name is listed (`ensureFlowControlLayer`, defaults.go).
   */
  policyRef(ref: unknown, kind: 'fairness' | 'ordering', path: string, problems: Problems): string | undefined {
    if (typeof ref === 'string' && !this.byName.has(ref)) {
      const row = EPP_PLUGINS[ref];
      if (row?.supported && row.kind === kind) return row.policy;
    }
    return this.ref(ref, [kind], path, problems)?.row.policy;
  }

  markUsed(name: string): void {
    this.used.add(name);
  }

  isUsed(name: string): boolean {
    return this.used.has(name);
  }
}
