import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import { tempDir } from '../runner/testSupport';
import { FakeTime } from '../testing/fakeTime';
import { encodeChunk, LogShipper } from './logShipper';
import { testRunStatus } from '../testing/testRunStatus';
import { FakeCoordinator } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('dagu-logs-'));
  mkdirSync(join(dir, 'logs'));
});
afterEach(() => cleanup());

function shipperFor(coordinator: FakeCoordinator, time = new FakeTime(0), chunkBytes?: number) {
  return new LogShipper({
    client: coordinator,
    workerId: 'w1',
    runId: 'run-1',
    attempt: 2,
    dir: join(dir, 'logs'),
    timers: time,
    logger: silentLogger,
    chunkBytes,
  });
}

describe('LogShipper', () => {
  it('ships every file of the log directory and then only what was appended', async () => {
    const coordinator = new FakeCoordinator();
    const shipper = shipperFor(coordinator);
    writeFileSync(join(dir, 'logs', 'a.out'), 'one\n');
    writeFileSync(join(dir, 'logs', 'a.err'), '');
    writeFileSync(join(dir, 'logs', 'b.out'), 'bee\n');
    expect(await shipper.flush()).toBe(true);

    appendFileSync(join(dir, 'logs', 'a.out'), 'two\n');
    expect(await shipper.flush()).toBe(true);

    expect(coordinator.logText('run-1', 'a.out')).toBe('one\ntwo\n');
    expect(coordinator.logText('run-1', 'b.out')).toBe('bee\n');
    expect(coordinator.logs.get('run-1/a.err')).toEqual(Buffer.alloc(0)); // empty files are announced once
    expect(coordinator.logChunks.filter((c) => c.file === 'a.err')).toHaveLength(1);
    expect(coordinator.logChunks.filter((c) => c.file === 'a.out').map((c) => [c.offset, c.data])).toEqual([
      [0, 'one\n'],
      [4, 'two\n'],
    ]);
    expect(coordinator.logChunks[0]).toMatchObject({ worker_id: 'w1', attempt: 2, encoding: 'utf8' });
    expect(shipper.offset('a.out')).toBe(8);
  });

  it("ships a piece of every file that has one in one request (a run's end), then one file alone", async () => {
    const coordinator = new FakeCoordinator();
    const shipper = shipperFor(coordinator);
    writeFileSync(join(dir, 'logs', '_run.log'), 'started\n');
    writeFileSync(join(dir, 'logs', 's.err'), '');
    writeFileSync(join(dir, 'logs', 's.out'), '');
    expect(await shipper.flush()).toBe(true);
    appendFileSync(join(dir, 'logs', '_run.log'), 'ended\n');
    expect(await shipper.flush()).toBe(true);
    expect(await shipper.flush()).toBe(true);

    expect(coordinator.calls).toEqual(['logs:_run.log,s.err,s.out', 'log:_run.log']);
    expect(coordinator.logText('run-1', '_run.log')).toBe('started\nended\n');
    expect(coordinator.logs.get('run-1/s.out')).toEqual(Buffer.alloc(0));
    expect(coordinator.logs.get('run-1/s.err')).toEqual(Buffer.alloc(0));
    expect(coordinator.logChunks[0]).toMatchObject({
      worker_id: 'w1',
      attempt: 2,
      file: '_run.log',
      offset: 0,
    });
  });

  it('puts at most one chunk of bytes in a batch and sends the rest one chunk a request', async () => {
    const coordinator = new FakeCoordinator();
    const shipper = shipperFor(coordinator, new FakeTime(0), 8);
    writeFileSync(join(dir, 'logs', 'a.out'), 'aaaaaa\n');
    writeFileSync(join(dir, 'logs', 'b.out'), 'bbbbbbbbbbbb\n');
    writeFileSync(join(dir, 'logs', 'c.out'), 'c\n');

    expect(await shipper.flush()).toBe(true);

    expect(coordinator.calls).toEqual(['logs:a.out,b.out', 'log:b.out', 'log:b.out', 'log:c.out']);
    expect(coordinator.logText('run-1', 'a.out')).toBe('aaaaaa\n');
    expect(coordinator.logText('run-1', 'b.out')).toBe('bbbbbbbbbbbb\n');
    expect(coordinator.logText('run-1', 'c.out')).toBe('c\n');
  });

  it('sends one chunk a request from the first refused batch on, to a coordinator without batches', async () => {
    const coordinator = new FakeCoordinator();
    coordinator.acceptsLogBatches = false;
    const shipper = shipperFor(coordinator);
    writeFileSync(join(dir, 'logs', 'a.out'), 'one\n');
    writeFileSync(join(dir, 'logs', 'a.err'), '');
    expect(await shipper.flush()).toBe(true);
    appendFileSync(join(dir, 'logs', 'a.out'), 'two\n');
    writeFileSync(join(dir, 'logs', 'a.err'), 'oops\n');
    expect(await shipper.flush()).toBe(true);

    expect(coordinator.calls).toEqual([
      'logs:a.err,a.out',
      'log:a.err',
      'log:a.out',
      'log:a.err',
      'log:a.out',
    ]);
    expect(coordinator.logText('run-1', 'a.out')).toBe('one\ntwo\n');
    expect(coordinator.logText('run-1', 'a.err')).toBe('oops\n');
  });

  it('resends from the offset the coordinator holds when it lost part of a file', async () => {
    const coordinator = new FakeCoordinator();
    const shipper = shipperFor(coordinator);
    writeFileSync(join(dir, 'logs', 'a.out'), 'hello\n');
    await shipper.flush();
    // A coordinator restored from an older state holds fewer bytes than the worker thinks.
    coordinator.logs.set('run-1/a.out', Buffer.from('hel'));
    appendFileSync(join(dir, 'logs', 'a.out'), 'world\n');
    expect(await shipper.flush()).toBe(true);

    expect(coordinator.logText('run-1', 'a.out')).toBe('hello\nworld\n');
    expect(coordinator.logChunks.map((c) => c.offset)).toEqual([0, 6, 3]);
  });

  it('sends big files in chunks no larger than the chunk size, keeping a split character for the next chunk', async () => {
    const coordinator = new FakeCoordinator();
    const shipper = shipperFor(coordinator, new FakeTime(0), 8);
    writeFileSync(join(dir, 'logs', 'a.out'), 'abcdefgé€xyz'); // é and € straddle the 8-byte boundaries
    await shipper.flush();

    expect(coordinator.logText('run-1', 'a.out')).toBe('abcdefgé€xyz');
    expect(coordinator.logChunks.every((c) => c.encoding === 'utf8')).toBe(true);
    expect(coordinator.logChunks.every((c) => Buffer.byteLength(c.data) <= 8)).toBe(true);
  });

  it('sends bytes that are not UTF-8 as base64', () => {
    const binary = Buffer.from([0xff, 0x00, 0xfe, 0x41]);
    expect(encodeChunk(binary)).toEqual({ data: binary.toString('base64'), encoding: 'base64', length: 4 });
    expect(encodeChunk(Buffer.from('plain'))).toEqual({ data: 'plain', encoding: 'utf8', length: 5 });
  });

  it('ships every 500 ms once started and picks up again after the coordinator was unreachable', async () => {
    const coordinator = new FakeCoordinator();
    const time = new FakeTime(0);
    const shipper = shipperFor(coordinator, time);
    shipper.start();
    writeFileSync(join(dir, 'logs', 'a.out'), 'first\n');
    coordinator.unreachable = true;
    await advanceUntil(time, () => coordinator.calls.includes('log:a.out!'));
    coordinator.unreachable = false;
    await advanceUntil(time, () => coordinator.logText('run-1', 'a.out') === 'first\n');
    shipper.stop();
  });
});

/**
 * Moves fake time on in small steps, letting real file I/O finish between them, until `check` holds. The
 * deadline is in real time and generous: on a loaded machine the file calls between steps take longer.
 */
async function advanceUntil(time: FakeTime, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check() && Date.now() < deadline) {
    await time.advance(100);
    await new Promise((r) => setTimeout(r, 5));
  }
  expect(check()).toBe(true);
}

describe('LogShipper.takeRest (the logs that go with the final status)', () => {
  const ended = testRunStatus({ run_id: 'run-1', attempt: 2, status: 'succeeded' });

  it('gives the rest of every file as one piece each; the answer to them leaves nothing to ship', async () => {
    const coordinator = new FakeCoordinator();
    const shipper = shipperFor(coordinator);
    writeFileSync(join(dir, 'logs', '_run.log'), 'started\n');
    writeFileSync(join(dir, 'logs', 's.out'), 'hello\n');
    expect(await shipper.flush()).toBe(true);
    appendFileSync(join(dir, 'logs', '_run.log'), 'ended\n');
    writeFileSync(join(dir, 'logs', 's.err'), '');
    coordinator.calls.length = 0;

    const rest = (await shipper.takeRest())!;
    expect(coordinator.calls).toEqual([]); // nothing sent on its own
    expect(rest.chunks).toEqual([
      { file: '_run.log', offset: 8, data: 'ended\n', encoding: 'utf8' },
      { file: 's.err', offset: 0, data: '', encoding: 'utf8' },
    ]);
    const reply = await coordinator.reportStatus('run-1', {
      worker_id: 'w1',
      status: ended,
      logs: rest.chunks,
    });
    expect(await rest.done(reply.logs)).toBe(true);
    expect(await shipper.flush()).toBe(true);

    expect(coordinator.calls).toEqual(['status:succeeded+logs:_run.log,s.err']);
    expect(coordinator.logText('run-1', '_run.log')).toBe('started\nended\n');
    expect(coordinator.logs.get('run-1/s.err')).toEqual(Buffer.alloc(0));
    expect(shipper.offset('_run.log')).toBe(14);
  });

  it('gives nothing when the coordinator holds every byte already', async () => {
    const coordinator = new FakeCoordinator();
    const shipper = shipperFor(coordinator);
    writeFileSync(join(dir, 'logs', 's.out'), 'x\n');
    writeFileSync(join(dir, 'logs', 's.err'), '');
    expect(await shipper.flush()).toBe(true);
    expect(await shipper.takeRest()).toBeNull();
    expect(coordinator.calls).toEqual(['logs:s.err,s.out']);
  });

  it('ships a rest larger than one chunk on its own first, and gives nothing to go with the status', async () => {
    const coordinator = new FakeCoordinator();
    const shipper = shipperFor(coordinator, new FakeTime(0), 8);
    writeFileSync(join(dir, 'logs', 's.out'), 'more than eight bytes\n');
    expect(await shipper.takeRest()).toBeNull();
    expect(coordinator.logText('run-1', 's.out')).toBe('more than eight bytes\n');
  });

  it('ships the logs itself when the coordinator did not take them with the status, and from then on', async () => {
    const coordinator = new FakeCoordinator();
    coordinator.acceptsStatusLogs = false;
    const shipper = shipperFor(coordinator);
    writeFileSync(join(dir, 'logs', 's.out'), 'one\n');
    const rest = (await shipper.takeRest())!;
    const reply = await coordinator.reportStatus('run-1', {
      worker_id: 'w1',
      status: ended,
      logs: rest.chunks,
    });
    expect(reply.logs).toBeUndefined();
    expect(await rest.done(reply.logs)).toBe(true);
    expect(coordinator.logText('run-1', 's.out')).toBe('one\n');

    appendFileSync(join(dir, 'logs', 's.out'), 'two\n');
    expect(await shipper.takeRest()).toBeNull(); // shipped on its own, not offered with a status again
    expect(coordinator.logText('run-1', 's.out')).toBe('one\ntwo\n');
  });

  it('sends again from the offset the coordinator asks for when it refused a piece', async () => {
    const coordinator = new FakeCoordinator();
    const shipper = shipperFor(coordinator);
    writeFileSync(join(dir, 'logs', 's.out'), 'abc\n');
    const rest = (await shipper.takeRest())!;
    // The coordinator holds nothing and is asked for offset 2: it answers with the size it holds.
    const refused = { ...rest.chunks[0], offset: 2, data: 'c\n' };
    const reply = await coordinator.reportStatus('run-1', {
      worker_id: 'w1',
      status: ended,
      logs: [refused],
    });
    expect(reply.logs).toEqual([{ accepted: false, next_offset: 0 }]);
    expect(await rest.done(reply.logs)).toBe(true);
    expect(coordinator.logText('run-1', 's.out')).toBe('abc\n');
  });
});
