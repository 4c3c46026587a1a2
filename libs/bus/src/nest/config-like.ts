/** The bus lib does not depend on the config schema; services pass their own typed config. */
export type SluiceConfigLike = object;
