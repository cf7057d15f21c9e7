import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryArtifactStore } from '../store/artifactStore';
import { ArtifactShipper } from './artifactShipper';
import { dagOf, runDag, stepOf, tempDir } from './testSupport';

let t: ReturnType<typeof tempDir>;
beforeEach(() => {
  t = tempDir('dagu-artifact-run-');
});
afterEach(() => t.cleanup());

const on = { artifacts: { enabled: true, dir: null } };

describe('a run with artifacts', () => {
  it('gives its steps DAG_RUN_ARTIFACTS_DIR and sends stream artifacts there', async () => {
    const dir = join(t.dir, 'arts');
    const dag = dagOf(
      [
        stepOf('s', 'echo "$DAG_RUN_ARTIFACTS_DIR"; echo oops >&2', {
          stdout_artifact: 'out/s.txt',
          stderr_artifact: 'err.txt',
        }),
      ],
      on,
    );
    const { final } = await runDag(dag, t.dir, { artifacts: { dir } });
    expect(final.status).toBe('succeeded');
    expect(readFileSync(join(dir, 'out/s.txt'), 'utf8')).toBe(`${dir}\n`);
    expect(readFileSync(join(dir, 'err.txt'), 'utf8')).toBe('oops\n');
  });

  it('fails before any step where artifacts cannot be kept (a worker)', async () => {
    const dag = dagOf([stepOf('s', 'echo hi')], on);
    const { final } = await runDag(dag, t.dir, {
      artifacts: { dir: null, reason: 'run artifacts are not supported on a worker' },
    });
    expect(final.status).toBe('failed');
    expect(final.error).toContain('run artifacts are not supported on a worker');
    expect(final.steps[0].status).toBe('not_started');
  });

  it('fails a step whose stream artifact path resolves outside the directory', async () => {
    const dir = join(t.dir, 'arts');
    const dag = dagOf([stepOf('s', 'echo hi', { stdout_artifact: '${P}' })], {
      ...on,
      env: { P: '../escape.txt' },
    });
    const { final } = await runDag(dag, t.dir, { artifacts: { dir } });
    expect(final.steps[0].status).toBe('failed');
    expect(final.steps[0].error).toBe(
      'stdout.artifact: artifact path must not contain parent directory segments (..)',
    );
    expect(existsSync(join(t.dir, 'escape.txt'))).toBe(false);
  });

  it('does not set DAG_RUN_ARTIFACTS_DIR without artifacts', async () => {
    const dag = dagOf([stepOf('s', 'test -z "${DAG_RUN_ARTIFACTS_DIR:-}"')]);
    const { final } = await runDag(dag, t.dir, { artifacts: { dir: join(t.dir, 'arts') } });
    expect(final.status).toBe('succeeded');
    expect(existsSync(join(t.dir, 'arts'))).toBe(false);
  });

  it('copies its artifacts to a copying store, and fails the run when one cannot be stored', async () => {
    const dir = join(t.dir, 'arts');
    const store = new MemoryArtifactStore();
    const dag = dagOf([stepOf('s', 'printf abc > "$DAG_RUN_ARTIFACTS_DIR/a.txt"')], on);
    const { final } = await runDag(dag, t.dir, {
      artifacts: { dir },
      artifactShipping: new ArtifactShipper(store, 'run-1', dir),
    });
    expect(final.status).toBe('succeeded');
    expect(await store.list('run-1')).toEqual([{ path: 'a.txt', size: 3 }]);

    const failing = new MemoryArtifactStore();
    failing.put = async () => {
      throw new Error('artifact "a.txt" is too big');
    };
    const again = await runDag(dag, t.dir, {
      artifacts: { dir: join(t.dir, 'arts2') },
      artifactShipping: new ArtifactShipper(failing, 'run-1', join(t.dir, 'arts2')),
    });
    expect(again.final.status).toBe('failed');
    expect(again.final.error).toBe('run artifacts not stored: artifact "a.txt" is too big');
  });

  it('brings back what an earlier attempt stored before its first step (a retry on another host)', async () => {
    const dir = join(t.dir, 'fresh');
    const store = new MemoryArtifactStore();
    await store.put('run-1', 'reports/a.md', new TextEncoder().encode('from attempt 1'));
    const dag = dagOf(
      [stepOf('s', 'cat "$DAG_RUN_ARTIFACTS_DIR/reports/a.md"', { stdout_artifact: 'copy.txt' })],
      on,
    );
    const { final } = await runDag(dag, t.dir, {
      artifacts: { dir },
      artifactShipping: new ArtifactShipper(store, 'run-1', dir),
    });
    expect(final.status).toBe('succeeded');
    expect(await store.list('run-1')).toEqual([
      { path: 'copy.txt', size: 14 },
      { path: 'reports/a.md', size: 14 },
    ]);
  });
});
