import type { Expr } from '../ir.ts';
import { printExprBare } from '../print.ts';

/** Operand class for ordering: columns first, then computed expressions, then literals. */
function rank(e: Expr): number {
  switch (e.kind) {
    case 'column':
      return 0;
    case 'number':
    case 'string':
    case 'bool':
    case 'null':
    case 'typed':
      return 2;
    case 'unary':
      return e.arg.kind === 'number' ? 2 : 1;
    default:
      return 1;
  }
}

/** A total order on expressions: class, then canonical text. */
export function compareExprs(a: Expr, b: Expr): number {
  const r = rank(a) - rank(b);
  if (r !== 0) return r;
  const ta = printExprBare(a);
  const tb = printExprBare(b);
  return ta < tb ? -1 : ta > tb ? 1 : 0;
}
