// Go's strings.TrimSpace, which Dagu applies to a step's captured output: it removes Unicode white space
// (unicode.IsSpace) from both ends. It differs from String.prototype.trim in two characters: Go removes
// U+0085 (NEL), which JavaScript keeps, and keeps U+FEFF (a byte order mark), which JavaScript removes.

/** Whether Go's unicode.IsSpace holds for the code point `cp`. */
function isGoSpace(cp: number): boolean {
  if (cp <= 0xff) {
    return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) || cp === 0x85 || cp === 0xa0;
  }
  return (
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

/** `s` without leading and trailing white space, as Go's strings.TrimSpace gives it. */
export function goTrimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  // None of Go's white space is outside the Basic Multilingual Plane, so code units are enough here.
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}
