import type { CanonicalRule } from './types.ts';
import { mapAllExprs } from './walk.ts';
import { FACT, holds } from './facts.ts';

export const notEqual: CanonicalRule = {
  name: 'not-equal',
  description: '`!=` is written `<>` (the same operator in both engines).',
  apply: (q) =>
    holds(q, FACT.notEqual)
      ? mapAllExprs(q, (e) => (e.kind === 'binary' && e.op === '!=' ? { ...e, op: '<>' } : e))
      : q,
};
