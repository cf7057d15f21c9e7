// The `jsonschema` part of the CLI (dist/jsonschema.cjs): Ajv's draft 2020-12 build, loaded when a run first
// checks a JSON Schema (schema-backed params, a step's output_schema: server/runner/jsonSchema.ts); every other
// command never loads it.
module.exports = require('ajv/dist/2020');
