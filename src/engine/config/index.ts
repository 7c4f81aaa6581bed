/** The config stage of the engine: load, validate, schema. */
export { declaredTwice, listConfigFiles, loadConfig, readEnvironments, type DeclaredEnvironments, type DeclaredTwice, type DeclaredPortal, type LoadedConfig, type LoadOptions } from './load.js';
export type { Environment, CredentialVariableNames } from './environments.js';
export { validateConfig, sortDiagnostics, redactDiagnostics } from './validate.js';
export { ConfigError, throwIfInvalid } from './errors.js';
export { configSchema, configSchemaText } from './config-schema.js';
export { compareVersions } from '../../core/version.js';
export { configFileLimit, isJsonFile, largestConfigFileLimit, maxConfigFileBytes, maxConfigDepth, maxExpandedNodes } from './source.js';
export type { SafetyLimits, SafetySettings } from './safety-settings.js';
