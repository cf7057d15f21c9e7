// The `${inputs.<name>}` and `${outputs.<name>}` bindings of a build DAG step (ValueScope.buildPaths).

import { describe, expect, it } from 'vitest';
import { resolveValue, type ValuePolicy, type ValueScope } from './values';

const scope: ValueScope = {
  vars: { OUT: '/from/vars', inputs: '{"src":"/from/json"}' },
  buildPaths: {
    inputs: { src: '/srv/w/in.txt', lib: '/srv/w/lib dir/a.so' },
    outputs: { bin: '/srv/w/.out.txt.dagu-1-0-ab.tmp' },
  },
};

describe('build path bindings', () => {
  it.each<[string, ValuePolicy, string]>([
    ['cp ${inputs.src} ${outputs.bin}', 'shellText', 'cp /srv/w/in.txt /srv/w/.out.txt.dagu-1-0-ab.tmp'],
    ['${ inputs.src }', 'value', '/srv/w/in.txt'],
    ['${inputs.lib}', 'stepEnv', '/srv/w/lib dir/a.so'],
    ['${outputs.bin}', 'directCommand', '/srv/w/.out.txt.dagu-1-0-ab.tmp'],
  ])('fills in %s (%s)', (text, policy, want) => {
    expect(resolveValue(text, scope, policy)).toBe(want);
  });

  it('keeps a reference with nothing bound as written', () => {
    for (const policy of ['value', 'shellText', 'stepEnv'] as const) {
      expect(resolveValue('${inputs.nope} ${outputs.nope}', scope, policy)).toBe(
        '${inputs.nope} ${outputs.nope}',
      );
      // Outside an attempt there are no outputs: the reference waits for one.
      expect(resolveValue('${outputs.bin}', { buildPaths: { inputs: {} } }, policy)).toBe('${outputs.bin}');
      expect(resolveValue('${inputs.src}', {}, policy)).toBe('${inputs.src}');
    }
  });

  it('does not read a variable or a JSON path named inputs', () => {
    // `inputs` in vars holds JSON with a `src` key: the build namespace wins, and an unbound name stays.
    expect(resolveValue('${inputs.src}', scope, 'value')).toBe('/srv/w/in.txt');
    expect(resolveValue('${inputs.src}', { vars: scope.vars }, 'value')).toBe('${inputs.src}');
  });

  it('reads only own names, and keeps an escaped reference', () => {
    expect(resolveValue('${inputs.constructor}', scope, 'value')).toBe('${inputs.constructor}');
    expect(resolveValue('\\${inputs.src}', { buildPaths: scope.buildPaths }, 'value')).toBe('${inputs.src}');
  });

  it('does not mix up the two namespaces', () => {
    const s: ValueScope = { buildPaths: { inputs: { x: '/in' }, outputs: { y: '/out' } } };
    expect(resolveValue('${inputs.y}|${outputs.x}|${inputs.x}|${outputs.y}', s, 'value')).toBe(
      '${inputs.y}|${outputs.x}|/in|/out',
    );
  });

  it('needs exactly one name after the namespace', () => {
    const s: ValueScope = { buildPaths: scope.buildPaths };
    expect(resolveValue('${inputs.src.x} ${inputs} ${outputs}', s, 'value')).toBe(
      '${inputs.src.x} ${inputs} ${outputs}',
    );
  });
});
