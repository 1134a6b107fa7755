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
export type { CaseDifficulty, Hardness, HardnessResult } from './hardness.ts';
export { caseDifficulty, hardness, hardnessCounts, hardnessLevel, HARDNESS_LEVELS } from './hardness.ts';
export type { ClauseDiff, ClauseMatch, ClauseName, EditItem, EditOp, NestedMatch } from './compare.ts';
export { CLAUSE_LABEL, CLAUSES, clauseDivergence, compareClauses } from './compare.ts';
export type { ClauseDistance, ClauseWeights, StructureScoreOptions } from './distance.ts';
export { clauseWeightedDistance, DEFAULT_CLAUSE_WEIGHTS, structureScore } from './distance.ts';
export type {
  AggregateFeature,
  ClauseFeatures,
  ColumnRefFeature,
  FilterFeature,
  OrderKeyFeature,
  ProjectionFeature,
  TableFeature,
  WindowFeature,
} from './features.ts';
export { clauseFeatures } from './features.ts';
export type { CompareStructureOptions, StructuralComparison } from './structure.ts';
export { compareStructure } from './structure.ts';
