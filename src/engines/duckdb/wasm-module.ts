/**
 * The DuckDB wasm compiled once per thread that starts engines (the app
 * worker), and handed to every DuckDB worker it starts, which instantiates it
 * instead of fetching and compiling 34 MB again. Before, a second engine (a
 * corpus with two fixtures, an engine restarted after a runaway) waited for
 * the first's download lock and compiled again: 3.5 s of the demo run's
 * engine start on this machine. The download itself is still fetchWasmOnce's
 * (one per browser, shared with the service worker), its progress posted for
 * the page as DuckDB's own fetch progress was.
 */
import ehWasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import { WASM_PROGRESS_CHANNEL, type WasmProgressMessage } from '../../core/wasm-progress.ts';
import { fetchWasmOnce } from './wasm-once.ts';

let compiled: Promise<WebAssembly.Module | null> | null = null;

/**
 * The compiled module, or null where it cannot be compiled here (no
 * streaming compile, a failed download, a policy without 'wasm-unsafe-eval'):
 * each DuckDB worker then fetches and compiles on its own, as before.
 */
export function duckDbWasmModule(): Promise<WebAssembly.Module | null> {
  compiled ??= compile().catch(() => {
    compiled = null; // the next engine tries again
    return null;
  });
  return compiled;
}

async function compile(): Promise<WebAssembly.Module | null> {
  if (typeof WebAssembly.compileStreaming !== 'function' || typeof TransformStream !== 'function') return null;
  const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(WASM_PROGRESS_CHANNEL);
  const post = (message: WasmProgressMessage) => channel?.postMessage(message);
  const started = performance.now();
  try {
    const href = new URL(ehWasmUrl, self.location.href).href;
    const response = await fetchWasmOnce(href, (url) => fetch(url, { credentials: 'same-origin' }));
    if (!response.ok || !response.body) return null;
    const bytesTotal = Number(response.headers.get('content-length')) || 0;
    let bytesLoaded = 0;
    let postedAt = -Infinity;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytesLoaded += chunk.byteLength;
          const now = performance.now();
          // A few dozen updates a second are all the progress line can show.
          if (now - postedAt >= 30 || bytesLoaded === bytesTotal) {
            postedAt = now;
            post({ kind: 'progress', bytesLoaded, bytesTotal, elapsedMs: now - started });
          }
          controller.enqueue(chunk);
        },
      }),
    );
    const module = await WebAssembly.compileStreaming(
      new Response(counted, { headers: { 'content-type': 'application/wasm' } }),
    );
    post({ kind: 'done', bytesTotal: Math.max(bytesTotal, bytesLoaded), elapsedMs: performance.now() - started });
    return module;
  } finally {
    channel?.close();
  }
}
