import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../core/clock';
import { FileEventLog } from '../store/fileEventLog';
import { MemoryEventLog } from '../store/memoryEventLog';
import { FileEventFeed, LogEventFeed } from './eventFeed';
import { manualClock } from './testServices';

const all = () => true;
const T0 = Date.parse('2026-11-30T01:14:30Z');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dagu-feed-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileEventFeed', () => {
  it('returns every event on the first read and only the new ones after that', async () => {
    const log = new FileEventLog({ dataDir: dir, clock: systemClock });
    const feed = new FileEventFeed(dir);
    const a = await log.append('scheduler.lock.acquired', { instance: 'a' });
    const b = await log.append('dag.run.queued', { run_id: 'r1' });

    expect((await feed.read(all)).map((e) => e.id)).toEqual([a.id, b.id]);
    expect(await feed.read(all)).toEqual([]);

    const c = await log.append('dag.run.running', { run_id: 'r1' });
    expect(await feed.read(all)).toEqual([c]);
  });

  it('skips the types it is not asked for, and does not offer them again later', async () => {
    const log = new FileEventLog({ dataDir: dir, clock: systemClock });
    const feed = new FileEventFeed(dir);
    await log.append('dag.run.queued', { run_id: 'r1' });
    const lock = await log.append('scheduler.lock.lost', { instance: 'a' });

    expect(await feed.read((t) => t.startsWith('scheduler.'))).toEqual([lock]);
    expect(await feed.read(all)).toEqual([]);
  });

  it('follows several day files, including a day before the newest that still grows', async () => {
    const clock = manualClock(T0);
    const log = new FileEventLog({ dataDir: dir, clock });
    const feed = new FileEventFeed(dir);
    const day1 = await log.append('x', { n: 1 });
    clock.advance(24 * 3600_000);
    const day2 = await log.append('x', { n: 2 });
    expect((await feed.read(all)).map((e) => e.id)).toEqual([day1.id, day2.id]);
    expect(readdirSync(path.join(dir, 'events'))).toEqual(['20261130.jsonl', '20261201.jsonl']);

    clock.advance(-24 * 3600_000 + 1000); // a writer whose clock is behind
    const late = await log.append('x', { n: 3 });
    expect(await feed.read(all)).toEqual([late]);
  });

  it('leaves a line that is still being written for the next read', async () => {
    const log = new FileEventLog({ dataDir: dir, clock: manualClock(T0) });
    const feed = new FileEventFeed(dir);
    const first = await log.append('x', { n: 1 });
    await feed.read(all);
    const file = path.join(dir, 'events', '20261130.jsonl');
    const line = `${JSON.stringify({ id: '1795914870000-0001abcdef', type: 'x', time: '2026-11-30T01:14:30.000Z', data: { n: 2 } })}\n`;
    appendFileSync(file, line.slice(0, 20));
    expect(await feed.read(all)).toEqual([]);
    appendFileSync(file, line.slice(20));
    expect((await feed.read(all)).map((e) => e.data)).toEqual([{ n: 2 }]);
    expect(first.data).toEqual({ n: 1 });
  });

  it('keeps the whole record found after a torn one and skips what cannot be read', async () => {
    const feed = new FileEventFeed(dir);
    const good = {
      id: '1795914870000-0001abcdef',
      type: 'x',
      time: '2026-11-30T01:14:30.000Z',
      data: { n: 1 },
    };
    mkdirSync(path.join(dir, 'events'));
    writeFileSync(
      path.join(dir, 'events', '20261130.jsonl'),
      `{"id":"1795914870000-00${JSON.stringify(good)}\ngarbage\n`,
    );
    expect(await feed.read(all)).toEqual([good]);
  });

  it('reads a file again from the start when it was replaced by a shorter one', async () => {
    const log = new FileEventLog({ dataDir: dir, clock: manualClock(T0) });
    const feed = new FileEventFeed(dir);
    await log.append('x', { n: 1 });
    await log.append('x', { n: 2 });
    await feed.read(all);
    const file = path.join(dir, 'events', '20261130.jsonl');
    writeFileSync(file, '');
    const again = await log.append('x', { n: 3 });
    expect(await feed.read(all)).toEqual([again]);
  });

  it('answers nothing while the log does not exist yet', async () => {
    expect(await new FileEventFeed(path.join(dir, 'none')).read(all)).toEqual([]);
  });
});

describe('LogEventFeed', () => {
  it('pages through the log and then returns only new events of the wanted types', async () => {
    const log = new MemoryEventLog({ clock: manualClock(T0) });
    for (let i = 0; i < 1500; i++) await log.append(i % 2 ? 'a' : 'b', { i });
    const feed = new LogEventFeed(log);
    expect((await feed.read((t) => t === 'a')).length).toBe(750);
    const next = await log.append('a', { i: 1500 });
    await log.append('b', { i: 1501 });
    expect(await feed.read((t) => t === 'a')).toEqual([next]);
  });
});
