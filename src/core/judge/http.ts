/**
 * One JSON POST with a timeout, a cancel, and retries with exponential
 * backoff on 429 and 5xx only (honouring Retry-After). Every failure comes
 * back as data with a `judge.*` code and a message a user can act on.
 */
import type { CancelSignal } from '../engine.ts';
import type { VerdictError } from '../errors.ts';
import { messageOf, verdictError } from '../errors.ts';
import type { JudgeRuntime } from './runtime.ts';
import { sleep } from './runtime.ts';

export interface TransportOptions {
  /** Budget per attempt (request and body), in ms. Default 60 000. */
  timeoutMs: number;
  /** Retries after the first attempt, on 429 and 5xx only. Default 2. */
  maxRetries: number;
  /** First backoff delay; doubles per retry. Default 500 ms. */
  backoffBaseMs: number;
  /** Ceiling of the exponential backoff. Default 8 000 ms. */
  backoffMaxMs: number;
  /** Ceiling on a server's Retry-After. Default 30 000 ms. */
  maxRetryAfterMs: number;
}

export const DEFAULT_TRANSPORT: TransportOptions = {
  timeoutMs: 60_000,
  maxRetries: 2,
  backoffBaseMs: 500,
  backoffMaxMs: 8_000,
  maxRetryAfterMs: 30_000,
};

export interface HttpSuccess {
  status: number;
  text: string;
  /** HTTP attempts made, retries included. */
  attempts: number;
}

export type HttpOutcome =
  | { ok: true; value: HttpSuccess }
  | { ok: false; error: VerdictError; status?: number; body?: string; attempts: number };

const BODY_SNIPPET = 500;

/** Retry-After (seconds, fractional allowed, or an HTTP date) or retry-after-ms, in ms; null when absent or unreadable. */
export function retryAfterMs(headers: { get(name: string): string | null }, nowMs: number): number | null {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

export function backoffMs(retry: number, options: TransportOptions): number {
  return Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** retry);
}

function snippet(text: string): string {
  return text.length > BODY_SNIPPET ? `${text.slice(0, BODY_SNIPPET)}…` : text;
}

type AttemptResult =
  | { kind: 'response'; status: number; text: string; retryAfter: number | null }
  | { kind: 'timeout' }
  | { kind: 'cancelled' }
  | { kind: 'network'; message: string };

async function attempt(
  runtime: JudgeRuntime,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal: CancelSignal | undefined,
): Promise<AttemptResult> {
  if (signal?.aborted) return { kind: 'cancelled' };
  const controller = runtime.newAbortController();
  let why: 'timeout' | 'cancelled' | null = null;
  const onCancel = () => {
    why ??= 'cancelled';
    controller.abort();
  };
  signal?.addEventListener('abort', onCancel);
  const clearTimer = runtime.setTimer(() => {
    why ??= 'timeout';
    controller.abort();
  }, timeoutMs);
  try {
    const response = await runtime.http.fetch(url, { method: 'POST', headers, body, signal: controller.signal });
    const text = await response.text();
    return { kind: 'response', status: response.status, text, retryAfter: retryAfterMs(response.headers, Date.now()) };
  } catch (thrown) {
    if (why === 'timeout') return { kind: 'timeout' };
    if (why === 'cancelled' || signal?.aborted) return { kind: 'cancelled' };
    return { kind: 'network', message: messageOf(thrown) };
  } finally {
    clearTimer();
    signal?.removeEventListener('abort', onCancel);
  }
}

function cancelled(url: string, attempts: number): HttpOutcome {
  return {
    ok: false,
    attempts,
    error: verdictError('run.cancelled', 'The judge request was cancelled.', { location: url }),
  };
}

/** An attempt that ended without an HTTP status: cancelled, timed out, or failed in the network. */
function noResponseFailure(
  result: Exclude<AttemptResult, { kind: 'response' }>,
  url: string,
  options: TransportOptions,
  attempts: number,
): HttpOutcome {
  switch (result.kind) {
    case 'cancelled':
      return cancelled(url, attempts);
    case 'timeout':
      return {
        ok: false,
        attempts,
        error: verdictError(
          'judge.timeout',
          `The judge at ${url} did not answer within ${options.timeoutMs} ms. A local model may need a longer timeout, or the server is overloaded.`,
          { location: url },
        ),
      };
    case 'network':
      return {
        ok: false,
        attempts,
        error: verdictError(
          'judge.cors_or_network',
          `Could not reach the judge at ${url}: the request failed without an HTTP status. ` +
            'Check the URL and that the server is running. In a browser this is also how a CORS refusal looks: ' +
            "the server must allow this page's origin (Access-Control-Allow-Origin and the headers the request sends).",
          { raw: result.message, location: url },
        ),
      };
  }
}

function authFailure(url: string, status: number, text: string, attempts: number): HttpOutcome {
  return {
    ok: false,
    attempts,
    status,
    body: text,
    error: verdictError(
      'judge.auth',
      `The judge at ${url} refused the credentials (HTTP ${status}). Check the API key (the settings panel in the app, SQL_VERDICT_JUDGE_KEY in the CLI) and that it may use this model.`,
      { raw: snippet(text), location: url },
    ),
  };
}

/** A non-2xx status that ends the call: a client error, or a 429 or 5xx once the retries are spent. */
function statusFailure(url: string, status: number, text: string, attempts: number, retryable: boolean): HttpOutcome {
  const what =
    status === 429 ? 'is rate-limiting requests' : status >= 500 ? 'had a server error' : 'rejected the request';
  const after = retryable ? ` after ${attempts} attempts` : '';
  return {
    ok: false,
    attempts,
    status,
    body: text,
    error: verdictError('judge.http_error', `The judge at ${url} ${what} (HTTP ${status})${after}.`, {
      raw: snippet(text),
      location: url,
    }),
  };
}

/** The wait before retry number `tries`: the server's Retry-After (capped) when given, else the backoff. */
function retryDelayMs(retryAfter: number | null, tries: number, options: TransportOptions): number {
  return retryAfter !== null ? Math.min(retryAfter, options.maxRetryAfterMs) : backoffMs(tries, options);
}

/**
 * POST `body` to `url`. 2xx is success; 429 and 5xx are retried; anything
 * else ends the call with a coded error. `label` names the endpoint in
 * messages (never the key).
 */
export async function postJson(
  runtime: JudgeRuntime,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  options: TransportOptions,
  signal?: CancelSignal,
): Promise<HttpOutcome> {
  const payload = JSON.stringify(body);
  const allHeaders = { 'content-type': 'application/json', ...headers };
  for (let tries = 0; ; tries++) {
    const attempts = tries + 1;
    const result = await attempt(runtime, url, allHeaders, payload, options.timeoutMs, signal);
    if (result.kind !== 'response') return noResponseFailure(result, url, options, attempts);
    const { status, text } = result;
    if (status >= 200 && status < 300) return { ok: true, value: { status, text, attempts } };
    if (status === 401 || status === 403) return authFailure(url, status, text, attempts);
    const retryable = status === 429 || status >= 500;
    if (retryable && tries < options.maxRetries) {
      const slept = await sleep(runtime, retryDelayMs(result.retryAfter, tries, options), signal);
      if (!slept) return cancelled(url, attempts);
      continue;
    }
    return statusFailure(url, status, text, attempts, retryable);
  }
}
