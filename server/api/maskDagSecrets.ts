// The DAG file's text as a console without write access may see it: the SMTP password (`smtp.password` of
// every document, the entrypoint and local sub-DAGs alike) replaced, as GET /api/v1/dags/:name masks it in
// the parsed definition. Whoever may write DAG files may run any command, so they get the text as written.

import { isMap, isPair, isScalar, parseAllDocuments } from 'yaml';

export const MASK = '********';

/** `text` with the value of each non-empty `smtp.password` replaced by the mask; the rest byte for byte. */
export function maskDagSecrets(text: string): string {
  const ranges: Array<[number, number]> = [];
  for (const doc of parseAllDocuments(text)) {
    if (!('contents' in doc) || !isMap(doc.contents)) continue;
    for (const item of doc.contents.items) {
      if (!isPair(item) || !isScalar(item.key) || item.key.value !== 'smtp' || !isMap(item.value)) continue;
      for (const field of item.value.items) {
        if (!isPair(field) || !isScalar(field.key) || field.key.value !== 'password') continue;
        const value = field.value;
        if (isScalar(value) && value.range && String(value.value ?? '') !== '') {
          ranges.push([value.range[0], value.range[1]]);
        } else if (value && !isScalar(value) && 'range' in value && value.range) {
          ranges.push([value.range[0], value.range[1]]); // not a text: hidden as well
        }
      }
    }
  }
  let out = text;
  for (const [from, to] of ranges.sort((a, b) => b[0] - a[0]))
    out = out.slice(0, from) + MASK + out.slice(to);
  return out;
}
