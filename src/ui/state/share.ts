/**
 * Share links: a comparison compressed into the URL fragment, so nothing is
 * sent anywhere. It carries everything that decides the verdict — both SQL
 * texts, the engine, the fixture's name and content digest, order_matters, the
 * shape and the evaluation config (neighbours included) — plus a SHA-256 checksum of all of it, so a link
 * changed or cut in transit is refused instead of opening a different
 * comparison. deflate-raw + base64url; the decoded size is capped (a tiny
 * link can inflate to gigabytes) and Chromium refuses URLs of 2 MiB or more.
 */
import { sha256Text } from '../../core/digest/sha256.ts';

export const SHARE_PREFIX = '#/s/';
/** Largest decompressed payload accepted. */
export const MAX_SHARE_DECODED = 1024 * 1024;
/** Largest fragment we produce or read (well below Chromium's 2 MiB URL limit). */
export const MAX_SHARE_ENCODED = 1_500_000;

export const SHARE_VERSION = 3;

/** The engines a shared comparison can run on in the browser (a PostgreSQL case runs on PGlite). */
export const SHARE_ENGINES = ['duckdb', 'sqlite', 'pglite'] as const;
export type ShareEngine = (typeof SHARE_ENGINES)[number];

/** Where a case graded on `engine` (a report's run_metadata.engine) runs in the browser: PostgreSQL as PGlite. */
export function shareEngine(engine: string): ShareEngine {
  if (engine === 'postgres') return 'pglite';
  return (SHARE_ENGINES as readonly string[]).includes(engine) ? (engine as ShareEngine) : 'duckdb';
}

export interface SharedComparison {
  v: 3;
  /** The engine both queries ran on: the same SQL can be decided differently on another. */
  engine: ShareEngine;
  fixture: string;
  /** The fixture's content digest when the link was made (null: not known); a different one refuses the link. */
  fixtureDigest: string | null;
  question: string;
  expectedSql: string;
  actualSql: string;
  orderMatters: boolean;
  /** The case's declared shape (scalar, top_n, …), or null. */
  shape: string | null;
  /** The evaluation config the verdict was reached with (tolerances, modes); null: the defaults. */
  config: Record<string, unknown> | null;
  /** The case it came from, when shared from a run. */
  caseId?: string;
}

/** Hex SHA-256 of the payload's canonical JSON (keys sorted), without the checksum itself. */
export async function checksumOf(payload: unknown): Promise<string> {
  const canonical = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(canonical)
      : x && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, canonical((x as Record<string, unknown>)[k])]),
          )
        : x;
  return sha256Text(JSON.stringify(canonical(payload)));
}

export function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export async function pump(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | 'too_large'> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      return 'too_large';
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export function streamOf(bytes: Uint8Array): ReadableStream<BufferSource> {
  return new Blob([bytes as BlobPart]).stream() as ReadableStream<BufferSource>;
}

export async function encodeShare(
  payload: SharedComparison,
): Promise<{ ok: true; fragment: string } | { ok: false; message: string }> {
  const json = new TextEncoder().encode(JSON.stringify({ ...payload, checksum: await checksumOf(payload) }));
  if (json.length > MAX_SHARE_DECODED)
    return {
      ok: false,
      message: `This comparison is too large to share as a link (${json.length} bytes; at most ${MAX_SHARE_DECODED}).`,
    };
  const compressed = await pump(streamOf(json).pipeThrough(new CompressionStream('deflate-raw')), MAX_SHARE_ENCODED);
  if (compressed === 'too_large') return { ok: false, message: 'This comparison is too large to share as a link.' };
  const fragment = `${SHARE_PREFIX}${toBase64Url(compressed)}`;
  if (fragment.length > MAX_SHARE_ENCODED)
    return { ok: false, message: 'This comparison is too large to share as a link.' };
  return { ok: true, fragment };
}

/**
 * `notice`: the link opened, but something about it the reader should know (a version-2 link names no engine and
 * opens on DuckDB, the only engine the playground shared from then).
 */
export async function decodeShare(
  fragment: string,
): Promise<{ ok: true; value: SharedComparison; notice?: string } | { ok: false; message: string }> {
  const body = fragment.startsWith(SHARE_PREFIX) ? fragment.slice(SHARE_PREFIX.length) : fragment;
  if (body.length > MAX_SHARE_ENCODED)
    return {
      ok: false,
      message: `This share link is too large (${body.length} characters; at most ${MAX_SHARE_ENCODED}).`,
    };
  const bytes = fromBase64Url(body);
  if (!bytes || bytes.length === 0)
    return { ok: false, message: 'This share link is corrupt: its fragment is not base64url text.' };
  // Only the one spelling we write: a changed last character can otherwise decode to the same bytes.
  if (toBase64Url(bytes) !== body)
    return { ok: false, message: 'This share link was changed or cut: its fragment is not as written.' };
  let json: Uint8Array | 'too_large';
  try {
    json = await pump(streamOf(bytes).pipeThrough(new DecompressionStream('deflate-raw')), MAX_SHARE_DECODED);
  } catch {
    return {
      ok: false,
      message: 'This share link is corrupt: it does not decompress (was it cut short when copied?).',
    };
  }
  if (json === 'too_large')
    return {
      ok: false,
      message: `This share link expands to more than ${MAX_SHARE_DECODED} bytes and was not opened.`,
    };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
  } catch {
    return { ok: false, message: 'This share link is corrupt: its content is not JSON.' };
  }
  const v = value as (Omit<Partial<SharedComparison>, 'v'> & { v?: unknown; checksum?: unknown }) | null;
  const text = (x: unknown): x is string => typeof x === 'string';
  if (v && typeof v === 'object' && v.v === 1)
    return {
      ok: false,
      message:
        'This share link was made by an older version of SQL Verdict and does not carry everything that decides the verdict (order, shape, config); share the case again.',
    };
  if (!v || typeof v !== 'object' || (v.v !== SHARE_VERSION && v.v !== 2) || !text(v.checksum))
    return {
      ok: false,
      message: 'This share link is not a SQL Verdict comparison (unknown version or missing fields).',
    };
  const config = v.config;
  // Each field with what it must hold: the message names the first one that does not (a hand-edited link is fixed by
  // its field, not by guessing among all of them).
  const isText = 'must be text';
  const checks: [string, unknown, boolean, string][] = [
    ['fixture', v.fixture, text(v.fixture), isText],
    ['fixtureDigest', v.fixtureDigest, v.fixtureDigest === null || text(v.fixtureDigest), 'must be text or null'],
    ['question', v.question, text(v.question), isText],
    ['expectedSql', v.expectedSql, text(v.expectedSql), isText],
    ['actualSql', v.actualSql, text(v.actualSql), isText],
    ['orderMatters', v.orderMatters, typeof v.orderMatters === 'boolean', 'must be true or false'],
    ['shape', v.shape, v.shape === null || text(v.shape), 'must be text or null'],
    [
      'config',
      config,
      config === null || (typeof config === 'object' && !Array.isArray(config)),
      'must be an object or null',
    ],
    ['caseId', v.caseId ?? '', v.caseId === undefined || text(v.caseId), isText],
  ];
  const wrong = checks.find(([, , good]) => !good);
  if (wrong)
    return {
      ok: false,
      message: `This share link is corrupt: field ${wrong[0]} ${wrong[1] === undefined ? 'is missing' : wrong[3]}.`,
    };
  const legacy = v.v === 2;
  if (!legacy && !(SHARE_ENGINES as readonly unknown[]).includes(v.engine))
    return {
      ok: false,
      message: `This share link is corrupt: field engine must be one of ${SHARE_ENGINES.join(', ')}.`,
    };
  const fields = {
    fixture: v.fixture!,
    fixtureDigest: v.fixtureDigest ?? null,
    question: v.question!,
    expectedSql: v.expectedSql!,
    actualSql: v.actualSql!,
    orderMatters: v.orderMatters!,
    shape: v.shape ?? null,
    config: (config ?? null) as Record<string, unknown> | null,
    ...(v.caseId !== undefined ? { caseId: v.caseId } : {}),
  };
  // The checksum covers the payload as it was written: a version-2 link had no engine.
  const written = legacy ? { v: 2, ...fields } : { v: 3, engine: v.engine, ...fields };
  if ((await checksumOf(written)) !== v.checksum)
    return {
      ok: false,
      message: 'This share link was changed or cut: its checksum does not match its content, so it was not opened.',
    };
  const opened: SharedComparison = { v: 3, engine: legacy ? 'duckdb' : v.engine!, ...fields };
  return legacy
    ? {
        ok: true,
        value: opened,
        notice:
          'This link was made by an older version of SQL Verdict, which did not record the engine: it opened on DuckDB.',
      }
    : { ok: true, value: opened };
}
