// The `yaml` part of the CLI (dist/yaml.cjs): the YAML parser, loaded when a DAG file is parsed or a
// config.yaml read (server/core/dag/parseDag.ts, server/config/loadConfig.ts); a run whose DAG comes from the
// DAG cache, on a home without config.yaml, never loads it.
module.exports = require('yaml');
