import { describe, expect, it } from 'vitest';
import { maskDagSecrets } from './maskDagSecrets';

describe('maskDagSecrets', () => {
  it('hides the SMTP password of every document and keeps everything else byte for byte', () => {
    const text = [
      '# mail on failure',
      'smtp:',
      '  host: mail',
      '  password: "s3cret" # rotate yearly',
      'steps:',
      '  - name: a',
      '    run: echo password',
      '---',
      'name: child',
      'smtp: {host: m, password: other}',
      'steps: [echo b]',
      '',
    ].join('\n');
    const masked = maskDagSecrets(text);
    expect(masked).not.toContain('s3cret');
    expect(masked).not.toContain('other');
    expect(masked).toBe(
      text.replace('"s3cret"', '********').replace('password: other}', 'password: ********}'),
    );
  });

  it('leaves a text without a password, an empty password and an unparsable text as they are', () => {
    for (const text of ['steps: [echo a]\n', 'smtp:\n  password: ""\nsteps: [a]\n', 'steps: [\n']) {
      expect(maskDagSecrets(text)).toBe(text);
    }
  });
});
