/**
 * PGlite in the browser's engine host Web Worker. Its three files (the
 * PostgreSQL wasm, initdb's wasm and the data bundle: ~15 MB) are fetched
 * from the app's own origin and handed to PGlite compiled, so nothing is
 * looked up elsewhere and the Content-Security-Policy's connect-src 'self' holds.
 * The download is read chunk by chunk and its bytes (all three summed) are
 * posted on PGLITE_PROGRESS_CHANNEL, so the page shows the first load's cost
 * as it does DuckDB's (src/core/wasm-progress.ts).
 */
import initdbWasmUrl from '@electric-sql/pglite/initdb.wasm?url';
import fsBundleUrl from '@electric-sql/pglite/pglite.data?url';
import pgliteWasmUrl from '@electric-sql/pglite/pglite.wasm?url';
import { PGLITE_PROGRESS_CHANNEL, type WasmProgressMessage } from '../../core/wasm-progress.ts';
import type { PgDriver } from './driver.ts';
import { PGLITE_FILE_BYTES } from './files.ts';
import { createPgliteDriver } from './driver-pglite.ts';

/** Posts at most every 50 ms (a chunk is ~64 KB: 15 MB would be hundreds of messages). */
class Progress {
  private readonly channel =
    typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(PGLITE_PROGRESS_CHANNEL);
  private readonly started = performance.now();
  private lastPost = -Infinity;
  private readonly loaded = [0, 0, 0];
  private readonly total = Object.values(PGLITE_FILE_BYTES).reduce((a, b) => a + b, 0);

  add(index: number, bytes: number, force = false): void {
    this.loaded[index] = this.loaded[index]! + bytes;
    const now = performance.now();
    if (!force && now - this.lastPost < 50) return;
    this.lastPost = now;
    this.post({
      kind: 'progress',
      bytesLoaded: this.loaded.reduce((a, b) => a + b, 0),
      // The known sizes: a file read past them (another PGlite build) shows bytes without a percent.
      bytesTotal: this.loaded.reduce((a, b) => a + b, 0) > this.total ? 0 : this.total,
      elapsedMs: now - this.started,
    });
  }

  done(): void {
    this.post({
      kind: 'done',
      bytesTotal: this.loaded.reduce((a, b) => a + b, 0),
      elapsedMs: performance.now() - this.started,
    });
  }

  close(): void {
    this.channel?.close();
  }

  private post(message: WasmProgressMessage): void {
    this.channel?.postMessage(message);
  }
}

async function download(url: string, index: number, progress: Progress): Promise<Uint8Array<ArrayBuffer>> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    progress.add(index, bytes.length, true);
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    progress.add(index, value.length);
  }
  progress.add(index, 0, true);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

export async function createBrowserPgliteDriver(): Promise<PgDriver> {
  const progress = new Progress();
  try {
    const [pgliteWasmModule, initdbWasmModule, fsBundle] = await Promise.all([
      download(pgliteWasmUrl, 0, progress).then((b) => WebAssembly.compile(b)),
      download(initdbWasmUrl, 1, progress).then((b) => WebAssembly.compile(b)),
      download(fsBundleUrl, 2, progress).then((b) => new Blob([b])),
    ]);
    progress.done();
    return createPgliteDriver({ pgliteWasmModule, initdbWasmModule, fsBundle });
  } finally {
    progress.close();
  }
}
