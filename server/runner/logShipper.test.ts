import { describe, expect, it } from 'vitest';
import { RunNotFoundError } from '../store/errors';
import { LogGapError, type NewRunLog, type RunLogRef } from '../store/runLogStore';
import { FakeTime, settle } from '../testing/fakeTime';
import { RecordingLogger } from '../testing/recordingLogger';
import { LogShipper, type LocalLogFiles } from './logShipper';

/** Local files the test writes to, as steps do. */
class Files implements LocalLogFiles {
  readonly content = new Map<string, Buffer>();
  write(file: string, text: string): void {
    this.content.set(file, Buffer.concat([this.content.get(file) ?? Buffer.alloc(0), Buffer.from(text)]));
  }
  async size(file: string) {
    return this.content.get(file)?.length ?? null;
  }
  async read(file: string, position: number, length: number) {
    return Uint8Array.from(this.content.get(file)!.subarray(position, position + length));
  }
}

type Mode = 'up' | 'down' | 'hang' | 'lose-answers';

/** A store that keeps appends by offset as the real ones do, and can be down, hang or lose its answers. */
class Store {
  readonly logs = new Map<string, Buffer>();
  readonly appends: Array<{ name: string; offset: number; length: number }> = [];
  mode: Mode = 'up';
  async append(ref: RunLogRef, offset: number, data: Uint8Array): Promise<number> {
    if (this.mode === 'down')
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    if (this.mode === 'hang') return new Promise<number>(() => undefined);
    this.appends.push({ name: ref.name, offset, length: data.length });
    const have = this.logs.get(ref.name) ?? Buffer.alloc(0);
    if (offset > have.length) throw new LogGapError(ref, offset, have.length);
    if (offset === have.length) this.logs.set(ref.name, Buffer.concat([have, data]));
    const size = this.logs.get(ref.name)!.length;
    if (this.mode === 'lose-answers') throw new Error('Connection terminated unexpectedly');
    return size;
  }
  text(name: string): string | undefined {
    return this.logs.get(name)?.toString();
  }
}

function world(opts: { chunkBytes?: number } = {}) {
  const time = new FakeTime(Date.UTC(2026, 11, 1));
  const files = new Files();
  const store = new Store();
  const logger = new RecordingLogger();
  const shipper = new LogShipper({
    store,
    clock: time,
    timers: time,
    logger,
    run: { dag_name: 'etl', run_id: 'r1', attempt: 1 },
    files,
    chunkBytes: opts.chunkBytes ?? 8,
    intervalMs: 1000,
  });
  return { time, files, store, logger, shipper };
}

describe('LogShipper', () => {
  it('ships what each watched file gained every interval, in bounded chunks', async () => {
    const { time, files, store, shipper } = world();
    shipper.watch('/logs/etl/r1/1/greet.out');
    shipper.watch('/logs/etl/r1/1/_run.log');
    files.write('/logs/etl/r1/1/greet.out', 'hello world\n');
    await time.advance(999);
    expect(store.text('greet.out')).toBeUndefined();
    await time.advance(1);
    expect(store.text('greet.out')).toBe('hello world\n');
    expect(store.appends.map((a) => a.length)).toEqual([8, 4]);
    // `_run.log` does not exist yet: nothing of it is stored until it does.
    expect(store.logs.has('_run.log')).toBe(false);
    files.write('/logs/etl/r1/1/greet.out', 'more\n');
    files.write('/logs/etl/r1/1/_run.log', 'Run started\n');
    await time.advance(1000);
    expect(store.text('greet.out')).toBe('hello world\nmore\n');
    expect(store.text('_run.log')).toBe('Run started\n');
    shipper.stop();
  });

  it('ships at once when a step ends, without waiting for the interval', async () => {
    const { files, store, shipper } = world();
    shipper.watch('/l/greet.out');
    files.write('/l/greet.out', 'done\n');
    shipper.kick();
    await settle();
    expect(store.text('greet.out')).toBe('done\n');
    shipper.stop();
  });

  it('makes an empty log exist in the store once its file does', async () => {
    const { time, files, store, shipper } = world();
    shipper.watch('/l/greet.err');
    await time.advance(1000);
    expect(store.logs.has('greet.err')).toBe(false);
    files.write('/l/greet.err', '');
    await time.advance(1000);
    expect(store.text('greet.err')).toBe('');
    await time.advance(5000);
    expect(store.appends).toHaveLength(1);
    shipper.stop();
  });

  it('makes the empty logs of a pass exist in one call where the store can, and ships their bytes later', async () => {
    const { time, files, store, shipper } = world();
    const made: string[][] = [];
    Object.assign(store, {
      async createLogs(logs: readonly NewRunLog[]) {
        made.push(logs.map(({ ref: r }) => `${r.run_id}/${r.attempt}/${r.name}`));
        for (const { ref: r, data } of logs) {
          expect(data).toBeUndefined();
          if (!store.logs.has(r.name)) store.logs.set(r.name, Buffer.alloc(0));
        }
        return logs.map(({ ref: r }) => store.logs.get(r.name)!.length);
      },
    });
    for (const f of ['/l/run.log', '/l/greet.out', '/l/greet.err']) {
      shipper.watch(f);
      files.write(f, '');
    }
    await time.advance(1000);
    expect(made).toEqual([['r1/1/run.log', 'r1/1/greet.out', 'r1/1/greet.err']]);
    expect(store.appends).toEqual([]);
    files.write('/l/greet.out', 'hi\n');
    await time.advance(1000);
    expect(store.text('greet.out')).toBe('hi\n');
    expect(store.appends).toEqual([{ name: 'greet.out', offset: 0, length: 3 }]);
    expect(made).toHaveLength(1);
    shipper.stop();
  });

  it('makes the empty logs one by one when the call for all of them fails', async () => {
    const { time, files, store, shipper } = world();
    Object.assign(store, {
      async createLogs() {
        throw new Error('Connection terminated unexpectedly');
      },
    });
    shipper.watch('/l/greet.out');
    shipper.watch('/l/greet.err');
    files.write('/l/greet.out', '');
    files.write('/l/greet.err', '');
    await time.advance(1000);
    expect(store.text('greet.out')).toBe('');
    expect(store.text('greet.err')).toBe('');
    expect(store.appends.map((a) => [a.name, a.offset, a.length])).toEqual([
      ['greet.out', 0, 0],
      ['greet.err', 0, 0],
    ]);
    shipper.stop();
  });

  it('retries while the store is down, reports the outage once and its end, and loses nothing', async () => {
    const { time, files, store, logger, shipper } = world();
    shipper.watch('/l/greet.out');
    store.mode = 'down';
    for (let i = 0; i < 5; i++) {
      files.write('/l/greet.out', `line ${i}\n`);
      await time.advance(2000);
    }
    expect(logger.find('Log shipping failed; retrying')).toHaveLength(1);
    expect(logger.find('Log shipping failed; retrying')[0]).toMatchObject({
      level: 'warn',
      fields: { log: 'greet.out', error: expect.stringContaining('ECONNREFUSED') },
    });
    // Passes at 1 s, 3 s and 7 s (spaced out as they fail); the last saw lines 0 to 3.
    expect(shipper.unshipped()).toBe(28);
    store.mode = 'up';
    // Passes space out while the store is down (up to 8 intervals): it is back within that.
    await time.advance(8000);
    expect(store.text('greet.out')).toBe('line 0\nline 1\nline 2\nline 3\nline 4\n');
    expect(logger.find('Log shipping resumed')).toHaveLength(1);
    expect(shipper.unshipped()).toBe(0);
    shipper.stop();
  });

  it('sends an append again when its answer was lost, without doubling a byte', async () => {
    const { time, files, store, shipper } = world({ chunkBytes: 100 });
    shipper.watch('/l/greet.out');
    files.write('/l/greet.out', 'one\n');
    store.mode = 'lose-answers';
    await time.advance(1000);
    files.write('/l/greet.out', 'two\n');
    store.mode = 'up';
    await time.advance(2000);
    expect(store.text('greet.out')).toBe('one\ntwo\n');
    // The retry named offset 0 again with the longer read; the store kept what it had and said so.
    expect(store.appends.map((a) => [a.offset, a.length])).toEqual([
      [0, 4],
      [0, 8],
      [4, 4],
    ]);
    shipper.stop();
  });

  it('ships from where the store ends when it has less than was shipped', async () => {
    const { time, files, store, shipper } = world({ chunkBytes: 100 });
    shipper.watch('/l/greet.out');
    files.write('/l/greet.out', 'one\n');
    await time.advance(1000);
    store.logs.delete('greet.out'); // restored from a backup taken before
    files.write('/l/greet.out', 'two\n');
    await time.advance(1000);
    expect(store.text('greet.out')).toBe('one\ntwo\n');
    shipper.stop();
  });

  it('stops shipping a log whose run the store does not have, and ships the others', async () => {
    const { time, files, store, logger, shipper } = world();
    const refusing = store.append.bind(store);
    store.append = async (ref, offset, data) => {
      if (ref.name === 'gone.out') throw new RunNotFoundError('r1', 1);
      return refusing(ref, offset, data);
    };
    shipper.watch('/l/gone.out');
    shipper.watch('/l/greet.out');
    files.write('/l/gone.out', 'x\n');
    files.write('/l/greet.out', 'y\n');
    await time.advance(3000);
    expect(store.text('greet.out')).toBe('y\n');
    expect(logger.find('the store has no such run attempt')).toHaveLength(1);
    expect(logger.find('Log shipping failed')).toHaveLength(0);
    shipper.stop();
  });

  it('flushes every byte written so far, without waiting for the interval', async () => {
    const { files, store, shipper } = world();
    shipper.watch('/l/greet.out');
    files.write('/l/greet.out', 'a'.repeat(50));
    expect(await shipper.flush(10_000)).toEqual({ complete: true, unshippedBytes: 0 });
    expect(store.text('greet.out')).toBe('a'.repeat(50));
    shipper.stop();
  });

  it('serves a flush asked during a pass with one more pass, then stops passing', async () => {
    const { files, store, shipper } = world({ chunkBytes: 100 });
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const plain = store.append.bind(store);
    let calls = 0;
    store.append = async (ref, offset, data) => {
      calls++;
      if (calls === 1) await gate;
      return plain(ref, offset, data);
    };
    shipper.watch('/l/greet.out');
    files.write('/l/greet.out', 'one\n');
    shipper.kick();
    await settle();
    // The first pass is under way (its append held); bytes written now are for a later pass to see.
    files.write('/l/greet.out', 'two\n');
    const flushed = shipper.flush(10_000);
    shipper.kick();
    release();
    expect(await flushed).toEqual({ complete: true, unshippedBytes: 0 });
    expect(store.text('greet.out')).toBe('one\ntwo\n');
    await settle();
    expect(calls).toBe(2);
    shipper.stop();
  });

  it('gives up a flush at its deadline while the store is down, saying what is left', async () => {
    const { time, files, store, shipper } = world();
    shipper.watch('/l/greet.out');
    files.write('/l/greet.out', 'a'.repeat(20));
    store.mode = 'down';
    let outcome: unknown = null;
    void shipper.flush(5000).then((o) => (outcome = o));
    await time.advance(4999);
    expect(outcome).toBeNull();
    await time.advance(1);
    expect(outcome).toEqual({ complete: false, unshippedBytes: 20 });
    shipper.stop();
  });

  it('gives up a flush at its deadline even when a store call never returns', async () => {
    const { time, files, store, shipper } = world();
    shipper.watch('/l/greet.out');
    files.write('/l/greet.out', 'stuck\n');
    store.mode = 'hang';
    let outcome: unknown = null;
    void shipper.flush(3000).then((o) => (outcome = o));
    await time.advance(3000);
    expect(outcome).toEqual({ complete: false, unshippedBytes: 6 });
    shipper.stop();
  });

  it('passes no more once stopped', async () => {
    const { time, files, store, shipper } = world();
    shipper.watch('/l/greet.out');
    shipper.stop();
    files.write('/l/greet.out', 'late\n');
    await time.advance(10_000);
    expect(store.appends).toHaveLength(0);
  });

  it('ignores a file whose name is not a log name, saying so', async () => {
    const { logger, shipper } = world();
    shipper.watch('/l/greet.script');
    expect(logger.find('its name is not a log name')).toHaveLength(1);
    expect(shipper.unshipped()).toBe(0);
    shipper.stop();
  });
});
