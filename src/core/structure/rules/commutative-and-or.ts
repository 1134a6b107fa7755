import type { Expr } from '../ir.ts';
import { printExprBare } from '../print.ts';
import type { CanonicalRule } from './types.ts';
import { mapAllExprs } from './walk.ts';
import { FACT, holds } from './facts.ts';

function sortArgs(e: Expr): Expr {
  if (e.kind !== 'logical') return e;
  const keyed = e.args.map((a) => ({ a, k: printExprBare(a) }));
  keyed.sort((x, y) => (x.k < y.k ? -1 : x.k > y.k ? 1 : 0));
  // Already in order: the node itself (a rule that changes nothing returns the same tree).
  if (keyed.every((x, i) => x.a === e.args[i])) return e;
  return { ...e, args: keyed.map((x) => x.a) };
}

export const commutativeAndOr: CanonicalRule = {
  name: 'commutative-and-or',
  description:
    'The operands of AND and OR are sorted by their canonical text (b = 2 AND a = 1 → a = 1 AND b = 2); three-valued AND/OR are commutative.',
  apply: (q) => (holds(q, FACT.logical) ? mapAllExprs(q, sortArgs) : q),
};
