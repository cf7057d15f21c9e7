// Structured step outputs at run time, with real processes: DAG text parsed as `dagu start` parses it, run by
// executeRun; later steps read `${id.output}`, `${id.output.x}` and `${id.outputs.x}`.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatDagError, parseDag } from '../core/dag/parseDag';
import type { DagSpec } from '../core/types';
import { runDag, tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('dagu-structured-')));
afterEach(() => cleanup());

function dagFrom(...rows: string[]): DagSpec {
  const r = parseDag(['working_dir: ' + dir, ...rows].join('\n') + '\n', {
    file: join(dir, 'x.yaml'),
    defaultName: 'x',
  });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag;
}

const seen = () => readFileSync(join(dir, 'seen'), 'utf8');

describe('object-form output', () => {
  it('publishes literals, stdout, stderr and a file; dependents read them', async () => {
    writeFileSync(join(dir, 'meta.yaml'), 'artifact:\n  path: build/report.md\n');
    const dag = dagFrom(
      'params: [CHANNEL=stable]',
      'steps:',
      '  - id: build',
      `    run: |`,
      `      echo '{"version":"v1.2.3","n":1000000}'`,
      `      echo '  warned  ' >&2`,
      '    output:',
      '      version: {from: stdout, decode: json, select: .version}',
      '      n: {from: stdout, decode: json, select: .n}',
      '      warning: {from: stderr}',
      '      path: {from: file, path: meta.yaml, decode: yaml, select: .artifact.path}',
      '      meta: {channel: "${CHANNEL}", approved: true}',
      '  - id: use',
      '    depends: [build]',
      `    run: printf '%s|%s|%s|%s|%s\\n' '\${build.outputs.version}' '\${build.output.path}' '\${build.outputs.warning}' '\${build.outputs.meta.channel}' '\${build.outputs.n}' > seen`,
    );
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('succeeded');
    expect(seen()).toBe('v1.2.3|build/report.md|warned|stable|1e+06\n');
    const build = final.steps[0];
    expect(build.output_value).toBe(
      '{"meta":{"approved":true,"channel":"stable"},"n":1000000,"path":"build/report.md","version":"v1.2.3","warning":"warned"}',
    );
  });

  it('runs an output-only step as a noop, and ${id.output} is the compact JSON', async () => {
    const dag = dagFrom(
      'steps:',
      '  - id: label',
      '    output: {text: "ver - 1", list: [a, b]}',
      '  - depends: [label]',
      `    run: printf '%s\\n' '\${label.output}' > seen`,
    );
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('succeeded');
    expect(seen()).toBe('{"list":["a","b"],"text":"ver - 1"}\n');
  });

  it('fails the step when stdout does not decode, or a file is missing', async () => {
    const dag = dagFrom(
      'steps:',
      '  - id: bad',
      '    run: echo not-json',
      '    output: {v: {from: stdout, decode: json}}',
      '  - id: nofile',
      '    run: "true"',
      '    output: {v: {from: file, path: missing.json}}',
    );
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('failed');
    expect(final.steps[0].status).toBe('failed');
    expect(final.steps[0].error).toMatch(/^failed to evaluate structured output: v: failed to decode JSON: /);
    expect(final.steps[1].status).toBe('failed');
    expect(final.steps[1].error).toBe(
      `failed to evaluate structured output: v: failed to read file "missing.json": ENOENT: no such file or directory, open '${join(dir, 'missing.json')}'`,
    );
  });

  it('fails the step when stdout, a file (an endless one too) or the published JSON goes over max_output_size', async () => {
    const dag = dagFrom(
      'max_output_size: 64',
      'steps:',
      '  - id: loud',
      '    run: head -c 100000 /dev/zero | tr "\\0" x',
      '    output: {v: {from: stdout}}',
      '  - id: wide',
      '    output: {v: "0123456789012345678901234567890123456789012345678901234567890123456789"}',
      '  - id: file',
      '    run: head -c 65 /dev/zero > big.txt',
      '    output: {v: {from: file, path: big.txt}}',
      '  - id: endless',
      '    output: {v: {from: file, path: /dev/zero}}',
      '  - id: dir',
      '    output: {v: {from: file, path: .}}',
    );
    const { final } = await runDag(dag, dir);
    expect(final.steps.map((s) => [s.status, s.error])).toEqual([
      [
        'failed',
        'failed to evaluate structured output: v: failed to capture stdout: output exceeded maximum size limit of 64 bytes',
      ],
      ['failed', 'failed to evaluate structured output: output exceeded maximum size limit of 64 bytes'],
      [
        'failed',
        'failed to evaluate structured output: v: failed to read file "big.txt": output exceeded maximum size limit of 64 bytes',
      ],
      [
        'failed',
        'failed to evaluate structured output: v: failed to read file "/dev/zero": output exceeded maximum size limit of 64 bytes',
      ],
      [
        'failed',
        'failed to evaluate structured output: v: failed to read file ".": EISDIR: illegal operation on a directory, read',
      ],
    ]);
  });

  it('gives null for a select path that is missing and runs jq expressions that are not paths', async () => {
    const dag = dagFrom(
      'steps:',
      '  - id: p',
      `    run: echo '{"items":[1,2,3]}'`,
      '    output:',
      '      missing: {from: stdout, decode: json, select: .nothing.here}',
      '      count: {from: stdout, decode: json, select: ".items | length"}',
      '  - depends: [p]',
      `    run: printf '%s|%s\\n' '\${p.outputs.missing}' '\${p.outputs.count}' > seen`,
    );
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('succeeded');
    expect(seen()).toBe('<nil>|3\n');
  });

  it('evaluates the output of a failed step too, for continue_on dependents', async () => {
    const dag = dagFrom(
      'steps:',
      '  - id: f',
      '    run: echo partial; exit 3',
      '    continue_on: {failure: true}',
      '    output: {v: {from: stdout}}',
      '  - depends: [f]',
      `    run: printf '%s\\n' '\${f.outputs.v}' > seen`,
    );
    const { final } = await runDag(dag, dir);
    expect(final.steps[0].status).toBe('failed');
    expect(seen()).toBe('partial\n');
  });
});

describe('stdout: {outputs}', () => {
  it('publishes ${id.outputs.x} but not ${steps.id.outputs.x}, which is for declared outputs', async () => {
    const dag = dagFrom(
      'steps:',
      '  - id: build',
      `    run: printf '{"image":"legacy-v1"}'`,
      '    stdout:',
      '      outputs:',
      '        fields:',
      '          image: {decode: json, select: .image}',
      '          status: accepted',
      '  - id: deploy',
      '    depends: build',
      `    run: printf '%s|%s|%s\\n' '\${build.outputs.image}' '\${build.outputs.status}' '\${steps.build.outputs.image}' > seen`,
    );
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('succeeded');
    expect(seen()).toBe('legacy-v1|accepted|${steps.build.outputs.image}\n');
    expect(final.steps[0].published_outputs).toEqual({ image: 'legacy-v1', status: 'accepted' });
  });

  it('keeps output: NAME working beside stdout.outputs, and fails on a non-object without a field', async () => {
    const dag = dagFrom(
      'steps:',
      '  - id: both',
      '    run: echo " msg-1 "',
      '    output: RAW',
      '    stdout: {outputs: messageId}',
      '  - depends: [both]',
      `    run: printf '%s|%s\\n' "$RAW" '\${both.outputs.messageId}' > seen`,
      '  - id: arr',
      '    run: echo "[1,2]"',
      '    stdout: {outputs: {decode: json}}',
    );
    const { final } = await runDag(dag, dir);
    expect(seen()).toBe('msg-1|msg-1\n');
    expect(final.steps[2].error).toBe(
      'failed to evaluate stdout outputs: decoded stdout outputs must be an object when field is omitted',
    );
  });

  it("shows every step's structured outputs to handlers", async () => {
    const dag = dagFrom(
      'type: chain',
      'steps:',
      '  - id: p',
      '    run: echo v',
      '    stdout: {outputs: x}',
      '  - id: q',
      '    run: "true"',
      'handler_on:',
      '  exit:',
      `    run: printf '%s\\n' '\${p.outputs.x}' > seen`,
    );
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('succeeded');
    expect(seen()).toBe('v\n');
  });
});
