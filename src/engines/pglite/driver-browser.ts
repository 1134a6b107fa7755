/**
 * PGlite in the browser's engine host Web Worker. Its three files (the
 * PostgreSQL wasm, initdb's wasm and the data bundle: ~15 MB) are fetched
 * from the app's own origin and handed to PGlite compiled, so nothing is
 * looked up elsewhere and the Content-Security-Policy's connect-src 'self' holds.
 */
import initdbWasmUrl from '@electric-sql/pglite/initdb.wasm?url';
import fsBundleUrl from '@electric-sql/pglite/pglite.data?url';
import pgliteWasmUrl from '@electric-sql/pglite/pglite.wasm?url';
import type { PgDriver } from './driver.ts';
import { createPgliteDriver } from './driver-pglite.ts';

async function fetched(url: string): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
  return response;
}

export async function createBrowserPgliteDriver(): Promise<PgDriver> {
  const [pgliteWasmModule, initdbWasmModule, fsBundle] = await Promise.all([
    fetched(pgliteWasmUrl).then(async (r) => WebAssembly.compile(await r.arrayBuffer())),
    fetched(initdbWasmUrl).then(async (r) => WebAssembly.compile(await r.arrayBuffer())),
    fetched(fsBundleUrl).then((r) => r.blob()),
  ]);
  return createPgliteDriver({ pgliteWasmModule, initdbWasmModule, fsBundle });
}
