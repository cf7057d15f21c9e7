import { describe, expect, it } from 'vitest';
import { MASK, SecretMask, maskingLogger } from './secretMask';
import type { LogFields, Logger } from '../core/ports';

describe('SecretMask', () => {
  it('masks every occurrence, the longest value first, and ignores empty values', () => {
    const m = new SecretMask(['abc', 'abcdef', '']);
    expect(m.text('x abcdef y abc z abcabc')).toBe(`x ${MASK} y ${MASK} z ${MASK}${MASK}`);
    expect(m.bytes(Buffer.from('abcdef-abc')).toString()).toBe(`${MASK}-${MASK}`);
    expect(new SecretMask(['']).empty).toBe(true);
  });

  it('masks texts anywhere in a status copy and leaves the original as it was', () => {
    const m = new SecretMask(['s3cr3t']);
    const status = { error: 'bad s3cr3t', steps: [{ output: { OUT: 'v=s3cr3t' }, exit_code: 1 }], n: null };
    const copy = m.deep(status);
    expect(copy).toEqual({
      error: `bad ${MASK}`,
      steps: [{ output: { OUT: `v=${MASK}` }, exit_code: 1 }],
      n: null,
    });
    expect(status.error).toBe('bad s3cr3t');
  });

  it('finds a value split across two writes of one line, and flushes the rest at the end', () => {
    const s = new SecretMask(['topsecret']).stream();
    const out = [
      s.push(Buffer.from('a tops')),
      s.push(Buffer.from('ecret b\nc top')),
      s.push(Buffer.from('secret')),
    ];
    out.push(s.end());
    expect(Buffer.concat(out).toString()).toBe(`a ${MASK} b\nc ${MASK}`);
  });

  it('writes a line longer than 1 MiB without waiting for its end', () => {
    const s = new SecretMask(['zz']).stream();
    const big = Buffer.alloc(1024 * 1024 + 10, 'a');
    expect(s.push(big).length).toBe(big.length);
    expect(s.end().length).toBe(0);
  });

  it('masks the lines and fields a logger is given once the mask is known', () => {
    const lines: Array<[string, LogFields | undefined]> = [];
    const base: Logger = {
      debug: () => {},
      info: (msg, f) => lines.push([msg, f]),
      warn: () => {},
      error: () => {},
      child: () => base,
    };
    let mask: SecretMask | null = null;
    const logger = maskingLogger(base, () => mask);
    logger.info('before pw1', { e: 'pw1' });
    mask = new SecretMask(['pw1']);
    logger.info('after pw1', { e: 'x pw1' });
    expect(lines).toEqual([
      ['before pw1', { e: 'pw1' }],
      [`after ${MASK}`, { e: `x ${MASK}` }],
    ]);
  });
});
