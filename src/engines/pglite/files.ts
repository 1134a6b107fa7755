/**
 * The byte sizes of the three files PGlite (@electric-sql/pglite 0.5.16) starts from in the browser: the total
 * of its first-load progress. The response's Content-Length cannot be used: a compressed response's is the
 * compressed size, a chunked one has none, and the body the page reads is the file itself.
 * tests/engines/pglite.test.ts checks them against the installed package.
 */
export const PGLITE_FILE_BYTES = {
  'pglite.wasm': 9_086_480,
  'initdb.wasm': 298_788,
  'pglite.data': 6_242_272,
} as const;
