/** Corpora, runs and fixtures manifest: loading, validation, self-check and golden lint. */
export * from './types.ts';
export * from './problems.ts';
export { loadCorpus, DEFAULT_CORPUS_MAX_BYTES, type LoadCorpusOptions, type CorpusLoadResult } from './load-corpus.ts';
export { loadRun, DEFAULT_RUN_MAX_BYTES, type LoadRunOptions, type RunLoadResult, type LoadedRun, type RunMetadata, type RunRecord } from './load-run.ts';
export { parseFixtureManifest, type FixtureManifestEntry, type ManifestResult } from './fixture-manifest.ts';
export { decodeUtf8Strict } from './utf8.ts';
