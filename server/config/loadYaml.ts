// The YAML parser of the config loader and the runner: core's lazy loader (core/yamlLibrary.ts), under the
// name the layers above core use.

export { yamlLibrary as loadYaml } from '../core/yamlLibrary';
