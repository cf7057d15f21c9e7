// Dagu sends every mail body as HTML: plain text gets its line breaks (real ones, and the two-character
// `\n` a YAML string may carry) turned into <br />; a body that is a whole HTML document goes as it is.

export function mailHtml(body: string): string {
  if (body.trim().toLowerCase().startsWith('<!doctype html')) return body;
  return body.replace(/\\r\\n|\\r|\\n|\r\n|\r|\n/g, '<br />');
}
