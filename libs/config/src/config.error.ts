/** Bad config: start-up stops with exit code 2 and these lines, each naming the key path. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  static readonly EXIT_CODE = 2;

  constructor(
    readonly problems: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`invalid sluice config:\n${problems.map((p) => `  - ${p}`).join('\n')}`, options);
  }
}
