/**
 * The DuckDB wasm download, heard on the engine hosts' BroadcastChannel
 * (src/core/wasm-progress.ts): bytes, percent and, once compiled,
 * what the first load cost. Several hosts may start DuckDB; the latest
 * download is shown. When the service worker is the one downloading (the
 * page has not started DuckDB yet), it posts the same progress here.
 * PGlite's first load (~15 MB in three files) is heard the same way on its own channel.
 */
import { WASM_PROGRESS_CHANNEL, type WasmProgressMessage } from '../../core/wasm-progress.ts';

export class WasmProgress {
  /** Bytes loaded and expected (0 when the server sends no length) of the download in progress; null when none is. */
  loading = $state.raw<{ bytesLoaded: number; bytesTotal: number; elapsedMs: number } | null>(null);
  /** The last completed load: size and time from the first byte asked to the compiled module. */
  done = $state.raw<{ bytesTotal: number; elapsedMs: number } | null>(null);
  /** Progress events heard (the browser test reads it). */
  events = $state(0);
  private channel: BroadcastChannel | null = null;

  /** PGLITE_PROGRESS_CHANNEL: PGlite's three files instead (the same messages). */
  constructor(private readonly channelName: string = WASM_PROGRESS_CHANNEL) {}

  start(): void {
    if (this.channel || typeof BroadcastChannel === 'undefined') return;
    this.channel = new BroadcastChannel(this.channelName);
    this.channel.onmessage = (event: MessageEvent<WasmProgressMessage>) => {
      const m = event.data;
      if (m.kind === 'progress') {
        this.events++;
        this.loading = { bytesLoaded: m.bytesLoaded, bytesTotal: m.bytesTotal, elapsedMs: m.elapsedMs };
      } else if (m.kind === 'cached') {
        // The service worker's background download for offline use: nothing was compiled.
        this.loading = null;
      } else {
        this.loading = null;
        this.done = { bytesTotal: m.bytesTotal, elapsedMs: m.elapsedMs };
      }
    };
  }
}

export const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
