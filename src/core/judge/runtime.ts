/**
 * What the judge needs from its platform, injected so the same code runs in
 * the browser and in Node. The core's ES2022 library has no `fetch`,
 * `setTimeout` or `AbortController`; these structural types are the smallest
 * shapes of them the judge uses, and the platform's own globals satisfy them
 * (see {@link standardRuntime}).
 */
import type { CancelSignal } from '../engine.ts';

/** Structurally an AbortSignal: what the judge hands to `fetch`. */
export interface AbortSignalLike extends CancelSignal {
  readonly reason?: unknown;
}

/** Structurally an AbortController. */
export interface AbortControllerLike {
  readonly signal: AbortSignalLike;
  abort(reason?: unknown): void;
}

export interface HttpRequestInit {
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  signal: AbortSignalLike;
}

/** Structurally a fetch Response: the parts the judge reads. */
export interface HttpResponseLike {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** Structurally `fetch` (method syntax, so the platform's `fetch` is assignable). */
export interface HttpClient {
  fetch(url: string, init: HttpRequestInit): Promise<HttpResponseLike>;
}

export interface JudgeRuntime {
  http: HttpClient;
  /** A fresh abort controller per request (the timeout and the cancel both abort it). */
  newAbortController(): AbortControllerLike;
  /** Run `callback` after `ms`; returns a function that clears the timer. */
  setTimer(callback: () => void, ms: number): () => void;
  /** Milliseconds, monotonic where the platform allows (latency only). */
  now(): number;
}

/** The standard globals of browsers, Node 20+ and workers, as the judge sees them. */
export interface StandardGlobals {
  // `never` parameters: the platform's own signatures (DOM RequestInit, Node timers) are accepted as they are.
  fetch(url: string, init: never): Promise<HttpResponseLike>;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: never): void;
  AbortController: new () => AbortControllerLike;
  performance?: { now(): number };
}

/**
 * A runtime built from standard globals: `standardRuntime(globalThis)` in the
 * browser, a worker or Node. The core never reads globals itself.
 */
export function standardRuntime(globals: StandardGlobals): JudgeRuntime {
  const fetchFn = globals.fetch.bind(globals);
  const setTimeoutFn = globals.setTimeout.bind(globals);
  const clearTimeoutFn = globals.clearTimeout.bind(globals) as (handle: unknown) => void;
  const perf = globals.performance;
  const Controller = globals.AbortController;
  return {
    http: { fetch: (url, init) => fetchFn(url, init as never) },
    newAbortController: () => new Controller(),
    setTimer(callback, ms) {
      const handle = setTimeoutFn(callback, ms);
      return () => clearTimeoutFn(handle);
    },
    now: () => (perf ? perf.now() : Date.now()),
  };
}

/** Resolves after `ms`, or early (with `false`) when `signal` aborts. */
export function sleep(runtime: JudgeRuntime, ms: number, signal?: CancelSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clear();
      resolve(false);
    };
    const clear = runtime.setTimer(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort);
  });
}
