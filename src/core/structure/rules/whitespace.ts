import type { Expr } from '../ir.ts';
import type { CanonicalRule } from './types.ts';
import { mapAllExprs } from './walk.ts';
import { FACT, holds } from './facts.ts';

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

function collapseRaw(e: Expr): Expr {
  if (e.kind !== 'raw') return e;
  const sql = collapseWhitespace(e.sql);
  return sql === e.sql ? e : { ...e, sql };
}

export const whitespace: CanonicalRule = {
  name: 'whitespace',
  description:
    'Whitespace and line breaks carry no meaning: the printer emits single spaces; SQL fragments kept verbatim (constructs the layer does not model) have their whitespace collapsed outside quotes.',
  apply: (q) => (holds(q, FACT.raw) ? mapAllExprs(q, collapseRaw) : q),
};
