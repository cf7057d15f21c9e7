import { describe, expect, it } from 'vitest';
import { artifactDownloadUrl, formatBytes } from './runArtifactLinks';

describe('run artifact links', () => {
  it('encodes the run ID and the path into the download address', () => {
    expect(artifactDownloadUrl('r 1', 'reports/a b.md')).toBe(
      '/api/v1/runs/r%201/artifacts/download?path=reports%2Fa%20b.md',
    );
  });
  it('writes sizes in B, KiB and MiB', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
  });
});
