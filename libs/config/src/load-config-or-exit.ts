import { ConfigError } from './config.error.js';
import { loadConfig, type ConfigSources } from './load-config.js';
import type { SluiceConfig } from './config.schema.js';

/** For a service's main: bad config prints the problems and exits with code 2. */
export function loadConfigOrExit(sources: ConfigSources = { env: process.env, argv: process.argv.slice(2) }): SluiceConfig {
  try {
    return loadConfig(sources);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(ConfigError.EXIT_CODE);
    }
    throw error;
  }
}
