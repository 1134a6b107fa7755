/**
 * Layer 2, structural comparison: parsing per dialect, canonical SQL,
 * clause-by-clause diff with an edit script, clause-weighted distance,
 * Spider hardness and clause features. Pure; errors are data.
 */
export type { Dialect, GrammarName } from './grammar.ts';
export { GRAMMAR_CHAIN } from './grammar.ts';
export type * from './ir.ts';
export { sameTree, stableJson } from './ir.ts';
export type { ParsedSql, ParseFailure, ParseOutcome, ParseWarning } from './parse.ts';
export { parseSql } from './parse.ts';
export { CONSTRUCTS, detectConstructs, unsupportedConstruct } from './constructs.ts';
export { printExpr, printQuery } from './print.ts';
export type { CanonicalOutcome, CanonicalSql, NormalizedSqlMatch } from './canonicalize.ts';
export { canonicalize, canonicalizeQuery, normalizedSqlMatch } from './canonicalize.ts';
export type { CanonicalRule, RuleContext } from './rules/index.ts';
export { RULES, ruleByName } from './rules/index.ts';
export type { Hardness, HardnessResult } from './hardness.ts';
export { hardness, hardnessCounts, hardnessLevel, HARDNESS_LEVELS } from './hardness.ts';
