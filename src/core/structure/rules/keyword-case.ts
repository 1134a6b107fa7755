import type { Expr } from '../ir.ts';
import type { CanonicalRule } from './types.ts';
import { mapAllExprs } from './walk.ts';
import { FACT, holds } from './facts.ts';

function upperName(e: Expr): Expr {
  return e.kind === 'func' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(e.name) && e.name !== e.name.toUpperCase()
    ? { ...e, name: e.name.toUpperCase() }
    : e;
}

export const keywordCase: CanonicalRule = {
  name: 'keyword-case',
  description:
    'Keywords are printed in upper case by the printer; function names, which both engines match case-insensitively, are folded to upper case too (count → COUNT).',
  apply: (q) => (holds(q, FACT.funcCase) ? mapAllExprs(q, upperName) : q),
};
