/**
 * The canonicalization rules, in the order they run. Order matters: names
 * are settled (case, aliases, qualifiers) before anything sorts by text, and
 * parentheses are dropped before AND/OR operands are flattened and sorted.
 */
import { columnAlias } from './column-alias.ts';
import { columnQualifier } from './column-qualifier.ts';
import { commutativeAndOr } from './commutative-and-or.ts';
import { identifierCase } from './identifier-case.ts';
import { implicitJoin } from './implicit-join.ts';
import { inListOrder } from './in-list-order.ts';
import { joinOrder } from './join-order.ts';
import { keywordCase } from './keyword-case.ts';
import { mirroredComparison } from './mirrored-comparison.ts';
import { notEqual } from './not-equal.ts';
import { redundantParentheses } from './redundant-parentheses.ts';
import { tableAlias } from './table-alias.ts';
import type { CanonicalRule } from './types.ts';
import { whitespace } from './whitespace.ts';

export type { CanonicalRule, RuleContext } from './types.ts';

export const RULES: readonly CanonicalRule[] = [
  whitespace,
  keywordCase,
  identifierCase,
  tableAlias,
  columnQualifier,
  columnAlias,
  implicitJoin,
  joinOrder,
  redundantParentheses,
  notEqual,
  mirroredComparison,
  inListOrder,
  commutativeAndOr,
];

export function ruleByName(name: string): CanonicalRule | undefined {
  return RULES.find((r) => r.name === name);
}
