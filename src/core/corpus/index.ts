/** Corpora, runs and fixtures manifest: loading, validation, self-check and golden lint. */
export * from './types.ts';
export * from './problems.ts';
export { loadCorpus, DEFAULT_CORPUS_MAX_BYTES, type LoadCorpusOptions, type CorpusLoadResult } from './load-corpus.ts';
export {
  loadRun,
  DEFAULT_RUN_MAX_BYTES,
  type LoadRunOptions,
  type RunLoadResult,
  type LoadedRun,
  type RunMetadata,
  type RunRecord,
} from './load-run.ts';
export {
  parseFixtureManifest,
  manifestFixtureResolver,
  type FixtureManifestEntry,
  type ManifestResult,
} from './fixture-manifest.ts';
export { decodeUtf8Strict } from './utf8.ts';
export { exactCompare, type ResultCompare, type CompareRequest, type CompareVerdict } from './compare.ts';
export { zeroTolerancePolicyCompare } from './policy-compare.ts';
export {
  runSelfCheck,
  formatSelfCheck,
  DEFAULT_TIME_BUDGET_MS,
  SELF_CHECK_FINDINGS,
  type SelfCheckOptions,
  type SelfCheckReport,
  type SelfCheckFinding,
  type SelfCheckFindingCode,
  type SelfCheckCaseResult,
  type SelfCheckFixture,
  type FixtureResolver,
  type ResolvedFixture,
} from './selfcheck.ts';
export {
  lintReferenceText,
  limitTieProbes,
  FROZEN_CLOCK_FUNCTIONS,
  UNFROZEN_CLOCK_FUNCTIONS,
  NONDETERMINISTIC,
  type TieProbe,
  type LexicalFinding,
} from './lint.ts';
export { outlineQuery, tokenize, type QueryOutline, type OrderKey, type Token } from './sql-tokens.ts';
export { describeCorpus, NONE, type CorpusDescription, type DescribedCase } from './describe.ts';
export {
  parseSchemaDescription,
  type SchemaDescription,
  type SchemaTable,
  type SchemaColumn,
} from './schema-description.ts';
export { parseReferencePorts, portCorpus, portCorpusWith, type ReferencePorts } from './dialect-ports.ts';
