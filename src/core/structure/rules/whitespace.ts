import type { CanonicalRule } from './types.ts';
import { mapAllExprs } from './walk.ts';

/** Collapse runs of whitespace outside quotes (the printer lays out everything else). */
export function collapseWhitespace(sql: string): string {
  let out = '';
  let quote: string | null = null;
  let pendingSpace = false;
  for (const ch of sql) {
    if (quote) {
      out += ch;
      if (ch === quote) quote = null;
      continue;
    }
    if (/\s/.test(ch)) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) out += ' ';
    pendingSpace = false;
    if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    out += ch;
  }
  return out;
}

export const whitespace: CanonicalRule = {
  name: 'whitespace',
  description:
    'Whitespace and line breaks carry no meaning: the printer emits single spaces; SQL fragments kept verbatim (constructs the layer does not model) have their whitespace collapsed outside quotes.',
  apply: (q) => mapAllExprs(q, (e) => (e.kind === 'raw' ? { ...e, sql: collapseWhitespace(e.sql) } : e)),
};
