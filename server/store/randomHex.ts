// Random hex suffixes for names that must not collide (temp files, run IDs, queue items). Not for secrets:
// Math.random avoids loading node:crypto, which costs a run process several milliseconds at start.

export function randomHex(bytes: number): string {
  let out = '';
  for (let i = 0; i < bytes; i++)
    out += Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0');
  return out;
}
