// The editor's syntax colours on a dark page: CodeMirror's default colours are dark (#219 on near-black
// fails WCAG contrast), so in dark mode each is mixed with white. Dark mode follows the system, like the
// rest of the console; the choice is made when the editor is created.

import { defaultHighlightStyle, HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import type { Extension } from '@codemirror/state';

/** `#rgb` or `#rrggbb` mixed with white by `amount` (0: as is, 1: white); other values are left alone. */
export function lighten(color: string, amount: number): string {
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(color);
  const long = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  const parts = short ? short.slice(1).map((h) => h + h) : long ? long.slice(1) : null;
  if (!parts) return color;
  return `#${parts
    .map((h) => Math.round(parseInt(h, 16) + (255 - parseInt(h, 16)) * amount))
    .map((v) => v.toString(16).padStart(2, '0'))
    .join('')}`;
}

let dark: HighlightStyle | null = null;

/** Light variants of the default colours when the system is in dark mode; nothing otherwise. */
export function darkHighlight(): Extension {
  if (typeof window === 'undefined' || !window.matchMedia('(prefers-color-scheme: dark)').matches) return [];
  dark ??= HighlightStyle.define(
    defaultHighlightStyle.specs.map((spec) =>
      typeof spec.color === 'string' ? { ...spec, color: lighten(spec.color, 0.6) } : spec,
    ),
  );
  return syntaxHighlighting(dark);
}
