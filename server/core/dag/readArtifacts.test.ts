import { describe, expect, it } from 'vitest';
import { cleanArtifactPath, refersToArtifactsDir } from './artifactPath';
import { parseDag } from './parseDag';

function load(text: string) {
  const r = parseDag(text, { file: '/srv/dags/art.yaml', defaultName: 'art' });
  if (!r.ok) return { errors: r.errors.map((e) => `${e.field}: ${e.message}`), dag: null };
  return { errors: [] as string[], dag: r.dag };
}

/** A one-step DAG whose step is `step` (YAML, indented under `- `), with `head` before `steps`. */
function step(stepText: string, head = '') {
  const body = stepText
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
  return load(`${head}steps:\n  - id: s\n${body}\n`);
}

describe('artifact paths', () => {
  it('cleans relative paths and refuses ones that leave the directory', () => {
    expect(cleanArtifactPath(' a/./b//c.txt ')).toEqual({ ok: true, path: 'a/b/c.txt' });
    expect(cleanArtifactPath('a\\b.txt')).toEqual({ ok: true, path: 'a/b.txt' });
    for (const bad of ['../x', 'a/../../x', '/etc/passwd', '~/x', '~', 'C:/x', '..\\x']) {
      expect(cleanArtifactPath(bad).ok, bad).toBe(false);
    }
    expect(cleanArtifactPath('.')).toEqual({ ok: false, error: 'artifact path must name a file' });
    expect(cleanArtifactPath('', true)).toEqual({ ok: true, path: '.' });
    expect(cleanArtifactPath('./', true)).toEqual({ ok: true, path: '.' });
  });

  it('sees the forms of a reference to the artifacts directory Dagu looks for', () => {
    for (const t of [
      'cp x ${DAG_RUN_ARTIFACTS_DIR}/y',
      '${env.DAG_RUN_ARTIFACTS_DIR}',
      '${context.paths.artifacts_dir}',
      'cp x $DAG_RUN_ARTIFACTS_DIR/y',
      '$env:DAG_RUN_ARTIFACTS_DIR',
      '%DAG_RUN_ARTIFACTS_DIR%',
      "os.environ.get; env('DAG_RUN_ARTIFACTS_DIR')",
    ]) {
      expect(refersToArtifactsDir(t), t).toBe(true);
    }
    expect(refersToArtifactsDir('$DAG_RUN_ARTIFACTS_DIRX')).toBe(false);
    expect(refersToArtifactsDir('DAG_RUN_ARTIFACTS_DIR')).toBe(false);
  });
});

describe('artifacts at load time', () => {
  it('is off unless enabled, used or referred to', () => {
    expect(step('run: echo hi').dag!.artifacts).toBeUndefined();
    expect(step('run: echo hi', 'artifacts: {enabled: true}\n').dag!.artifacts).toEqual({
      enabled: true,
      dir: null,
    });
    expect(step('run: echo hi', 'artifacts: {enabled: false}\n').dag!.artifacts).toEqual({
      enabled: false,
      dir: null,
    });
    expect(step('run: echo hi', 'artifacts: {dir: /srv/art}\n').dag!.artifacts).toEqual({
      enabled: false,
      dir: '/srv/art',
    });
  });

  it('turns on by itself for a reference, an artifact action or an artifact output', () => {
    expect(step('run: ls $DAG_RUN_ARTIFACTS_DIR').dag!.artifacts).toEqual({ enabled: true, dir: null });
    expect(step('run: echo', 'env:\n  - OUT: ${context.paths.artifacts_dir}\n').dag!.artifacts?.enabled).toBe(
      true,
    );
    expect(step('action: artifact.list').dag!.artifacts?.enabled).toBe(true);
    expect(step('run: echo\nstderr: {artifact: e.txt}').dag!.artifacts?.enabled).toBe(true);
    expect(step('run: ls $DAG_RUN_ARTIFACTS_DIR', 'artifacts: {dir: /srv/art}\n').dag!.artifacts).toEqual({
      enabled: true,
      dir: '/srv/art',
    });
  });

  it('refuses enabled: false with an artifact action or output, and bad types', () => {
    expect(step('action: artifact.list', 'artifacts: {enabled: false}\n').errors).toEqual([
      'artifacts.enabled: artifact actions require artifacts.enabled to be true',
    ]);
    expect(step('run: echo\nstdout: {artifact: o.txt}', 'artifacts: {enabled: false}\n').errors).toEqual([
      'artifacts.enabled: artifact outputs require artifacts.enabled to be true',
    ]);
    expect(step('run: echo', 'artifacts: yes\n').errors).toEqual([
      'artifacts: must be a map with enabled and dir, got a string "yes"',
    ]);
    expect(step('run: echo', 'artifacts: {enabled: "yes", dir: 3, keep: 1}\n').errors).toEqual([
      'artifacts.enabled: must be true or false, got a string "yes"',
      'artifacts.dir: must be a string, got a number 3',
      'artifacts.keep: unknown key "keep" (allowed: enabled, dir)',
    ]);
  });

  it('reads stream artifacts, refusing hostile paths and one file for both streams', () => {
    const both = step(
      'run: echo\nstdout: {artifact: "logs/${DAG_NAME}.out", outputs: OUT}\nstderr: {artifact: ./e.txt}',
    );
    expect(both.dag!.steps[0]).toMatchObject({
      stdout_artifact: 'logs/${DAG_NAME}.out',
      stderr_artifact: 'e.txt',
    });
    expect(step('run: echo\nstdout: {artifact: /tmp/x}').errors).toEqual([
      'steps[0].stdout.artifact: artifact path must be relative',
    ]);
    expect(step('run: echo\nstderr: {artifact: a/../../x}').errors).toEqual([
      'steps[0].stderr.artifact: artifact path must not contain parent directory segments (..)',
    ]);
    expect(step('run: echo\nstdout: {artifact: o.txt}\nstderr: {artifact: o.txt}').errors).toEqual([
      'steps[0].stderr: stdout.artifact and stderr.artifact cannot point to the same file "o.txt"; use log_output: merged instead',
    ]);
    expect(step('run: echo\nstdout: {artifact: 3}').errors).toEqual([
      'steps[0].stdout.artifact: must be a string, got a number 3',
    ]);
  });
});

describe('artifact actions at load time', () => {
  it('keeps with as written for each operation', () => {
    expect(
      step('action: artifact.write\nwith: {path: "r/${DAG_RUN_ID}.md", content: "", overwrite: true}').dag!
        .steps[0].action,
    ).toEqual({
      kind: 'artifact',
      op: 'write',
      with: { path: 'r/${DAG_RUN_ID}.md', content: '', overwrite: true },
    });
    expect(
      step('action: artifact.read\nwith: {path: a, format: json, max_bytes: 10}').dag!.steps[0].action,
    ).toEqual({
      kind: 'artifact',
      op: 'read',
      with: { path: 'a', format: 'json', max_bytes: 10 },
    });
    expect(step('action: artifact.list').dag!.steps[0].action).toEqual({
      kind: 'artifact',
      op: 'list',
      with: {},
    });
    expect(
      step('type: artifact\ncommand: list\nwith: {recursive: true, include_dirs: true, pattern: "**/*.md"}')
        .dag!.steps[0].action,
    ).toEqual({
      kind: 'artifact',
      op: 'list',
      with: { recursive: true, include_dirs: true, pattern: '**/*.md' },
    });
  });

  it('refuses what Dagu refuses when the file loads', () => {
    expect(step('action: artifact.write\nwith: {path: a}').errors).toEqual([
      'steps[0].with: artifact.write needs with.content',
    ]);
    expect(step('action: artifact.read').errors).toEqual(['steps[0].action: artifact.read needs with.path']);
    expect(step('action: artifact.read\nwith: {path: " "}').errors).toEqual([
      'steps[0].with.path: must not be blank',
    ]);
    expect(step('action: artifact.read\nwith: {path: a, format: yaml}').errors).toEqual([
      'steps[0].with.format: must be raw or json, got "yaml"',
    ]);
    expect(step('action: artifact.write\nwith: {path: a, content: 3}').errors).toEqual([
      'steps[0].with.content: must be a string, got a number 3',
    ]);
    expect(step('action: artifact.list\nwith: {max_bytes: -1}').errors).toEqual([
      'steps[0].with.max_bytes: must be at least 0, got -1',
    ]);
    expect(step('action: artifact.write\nwith: {path: a, content: x, mode: "0o644"}').errors).toEqual([]);
    expect(step('action: artifact.write\nwith: {path: a, content: x, mode: "644x"}').errors).toEqual([
      'steps[0].with.mode: must be an octal file mode such as 0600 or 0644, got "644x"',
    ]);
    expect(step('action: artifact.list\nrun: ls').errors).toContain(
      'steps[0].run: action artifact.list does not take run',
    );
  });
});
