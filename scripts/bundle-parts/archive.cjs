// The `archive` part of the CLI (dist/archive.cjs): node-tar, yauzl and yazl, loaded when a run first runs an
// archive step (server/runner/actions/archiveAction.ts, archiveEntries.ts); every other command never loads
// them. Our sources import `tar`, `yauzl` and `yazl`: each resolves to this object, which carries what they use.
const { Pack, Parser } = require('tar');
const { open } = require('yauzl');
const { ZipFile } = require('yazl');

module.exports = { Pack, Parser, open, ZipFile };
