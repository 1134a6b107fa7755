import type { CanonicalRule } from './types.ts';
import { mapAllExprs } from './walk.ts';

export const keywordCase: CanonicalRule = {
  name: 'keyword-case',
  description:
    'Keywords are printed in upper case by the printer; function names, which both engines match case-insensitively, are folded to upper case too (count → COUNT).',
  apply: (q) =>
    mapAllExprs(q, (e) =>
      e.kind === 'func' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(e.name) ? { ...e, name: e.name.toUpperCase() } : e,
    ),
};
