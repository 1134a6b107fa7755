/** Benchmark files as they are (Spider, BIRD, defog-style CSV) read into a corpus and a run. */
export * from './common.ts';
export { importSpider, type SpiderImportInput } from './spider.ts';
export { importBird, BIRD_SEPARATOR, type BirdImportInput } from './bird.ts';
export { importCsv, parseCsv, expandAlternatives, MAX_ALTERNATIVES, type CsvImportInput } from './csv.ts';
