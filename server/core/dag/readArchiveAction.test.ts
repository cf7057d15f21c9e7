import { describe, expect, it } from 'vitest';
import { parseDag } from './parseDag';

/** The step's action, or the errors of a one-step DAG whose step is `step` (YAML, indented under `- `). */
function load(step: string) {
  const text = `steps:\n  - id: a\n${step
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;
  const r = parseDag(text, { file: '/srv/dags/archive.yaml', defaultName: 'archive' });
  if (!r.ok) return { errors: r.errors.map((e) => `${e.field}: ${e.message}`), action: null };
  return { errors: [] as string[], action: r.dag.steps[0].action };
}

describe('archive actions at load time', () => {
  it('keeps with as written for each operation', () => {
    expect(
      load(
        'action: archive.create\nwith:\n  source: "${DIR}"\n  destination: out.tar.gz\n  compression_level: 6\n  exclude: ["*.log"]\n  dry_run: true',
      ).action,
    ).toEqual({
      kind: 'archive',
      op: 'create',
      with: {
        source: '${DIR}',
        destination: 'out.tar.gz',
        compression_level: 6,
        exclude: ['*.log'],
        dry_run: true,
      },
    });
    expect(load('action: archive.extract\nwith: {source: a.zip, strip_components: 1}').action).toEqual({
      kind: 'archive',
      op: 'extract',
      with: { source: 'a.zip', strip_components: 1 },
    });
    expect(load('action: archive.list\nwith: {source: a.tar, format: TGZ}').action).toMatchObject({
      op: 'list',
    });
  });

  it('reads the legacy type: archive with the operation in command', () => {
    expect(load('type: archive\ncommand: Extract\nconfig: {source: a.zip}').action).toMatchObject({
      kind: 'archive',
      op: 'extract',
    });
    // Dagu loads a legacy step without config; it fails when it runs.
    expect(load('type: archive\ncommand: list').action).toEqual({ kind: 'archive', op: 'list', with: {} });
    expect(load('type: archive\nconfig: {source: a.zip}').errors).toEqual([
      'steps[0].type: type: archive needs the operation in command (create, extract, list)',
    ]);
    expect(load('type: archive\ncommand: unpack').errors).toEqual([
      'steps[0].command: unsupported archive operation "unpack" (use create, extract, list)',
    ]);
    expect(load('action: archive').errors).toEqual([
      'steps[0].action: action archive needs an operation: archive.create, archive.extract, archive.list',
    ]);
    expect(load('action: archive.unpack').errors).toEqual([
      'steps[0].action: unknown action "archive.unpack" (archive has archive.create, archive.extract, archive.list)',
    ]);
  });

  it.each([
    ['action: archive.list', 'steps[0].action: archive.list needs with.source'],
    ['action: archive.list\nwith: {destination: d}', 'steps[0].with: archive needs with.source'],
    ['action: archive.list\nwith: {source: 3}', 'steps[0].with.source: must be a string, got a number 3'],
    ['action: archive.list\nwith: {source: a, sorce: b}', 'steps[0].with.sorce'],
    [
      'action: archive.extract\nwith: {source: a, strip_components: -1}',
      'steps[0].with.strip_components: must be at least 0',
    ],
    [
      'action: archive.extract\nwith: {source: a, overwrite: "yes"}',
      'steps[0].with.overwrite: must be true or false',
    ],
    [
      'action: archive.extract\nwith: {source: a, include: "*.txt"}',
      'steps[0].with.include: include must be a list',
    ],
    [
      'action: archive.extract\nwith: {source: a, include: [1]}',
      'steps[0].with.include[0]: must be a string',
    ],
    ['action: archive.create\nwith: {source: a}\nrun: echo', 'run cannot be used together with action'],
    [
      'action: archive.create\nwith: {source: a}\ncommand: create',
      'action archive.create does not take command',
    ],
  ])('refuses %j', (step, error) => {
    const { errors } = load(step);
    expect(errors.join('\n')).toContain(error);
  });

  it('refuses formats of Dagu that this product lacks, as unsupported', () => {
    expect(load('action: archive.extract\nwith: {source: a.7z, format: 7z}').errors).toEqual([
      'steps[0].with.format: archive format "7z" is not supported by this product (supported: zip, tar, tar.gz/tgz)',
    ]);
    expect(
      load('action: archive.create\nwith: {source: a, destination: b, format: tar.xz}').errors,
    ).toHaveLength(1);
    // A format given by a reference is checked when the step runs.
    expect(load('action: archive.create\nwith: {source: a, destination: b, format: "${F}"}').errors).toEqual(
      [],
    );
  });
});
