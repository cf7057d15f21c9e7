// The `jsyaml` part of the CLI (dist/jsyaml.cjs): js-yaml's event parser, the fast path of reading a DAG file
// (server/core/dag/yamlFrontEnd.ts). Loaded with the `yaml` part, whose node classes the readers walk.
module.exports = require('js-yaml');
