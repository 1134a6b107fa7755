/**
 * Small runs as share links (SPEC 7): the run report itself, with a SHA-256
 * checksum, deflated into the URL fragment (`#/r/…`), so the receiver sees
 * the very results views of the sender and nothing goes to a server. A link
 * changed or cut in transit is refused (spelling, checksum), and the report
 * inside is then checked as any opened report is (the gate's check: the
 * summary recomputed from its cases). Past the size limit the sender is told
 * to share the JSON report instead.
 */
import type { RunReport } from '../../core/run/grade-run.ts';
import { checksumOf, fromBase64Url, MAX_SHARE_DECODED, pump, streamOf, toBase64Url } from './share.ts';

export const RUN_SHARE_PREFIX = '#/r/';
/**
 * Longest run link made: 64 KiB of fragment. Chromium takes URLs up to 2 MiB,
 * but mail and chat tools cut links far shorter; a run of a few dozen cases fits.
 */
export const MAX_RUN_SHARE_ENCODED = 65_536;
/** Largest decompressed run accepted from a link (a tiny link can inflate to gigabytes). */
export const MAX_RUN_SHARE_DECODED = 8 * MAX_SHARE_DECODED;

interface SharedRun {
  v: 1;
  kind: 'run';
  report: RunReport;
}

export async function encodeRunShare(
  report: RunReport,
): Promise<{ ok: true; fragment: string } | { ok: false; message: string }> {
  const payload: SharedRun = { v: 1, kind: 'run', report };
  const json = new TextEncoder().encode(JSON.stringify({ ...payload, checksum: await checksumOf(payload) }));
  const tooLarge = (size: string) =>
    `This run is too large to share as a link (${report.cases.length} cases, ${size}; a link holds at most ${MAX_RUN_SHARE_ENCODED.toLocaleString('en-US')} characters, a few dozen cases): export the JSON report and open that file in the app instead.`;
  if (json.length > MAX_RUN_SHARE_DECODED)
    return { ok: false, message: tooLarge(`${json.length.toLocaleString('en-US')} bytes of JSON`) };
  const compressed = await pump(
    streamOf(json).pipeThrough(new CompressionStream('deflate-raw')),
    MAX_RUN_SHARE_ENCODED,
  );
  if (compressed === 'too_large')
    return {
      ok: false,
      message: tooLarge(`more than ${MAX_RUN_SHARE_ENCODED.toLocaleString('en-US')} bytes compressed`),
    };
  const fragment = `${RUN_SHARE_PREFIX}${toBase64Url(compressed)}`;
  if (fragment.length > MAX_RUN_SHARE_ENCODED)
    return { ok: false, message: tooLarge(`${fragment.length.toLocaleString('en-US')} characters as a link`) };
  return { ok: true, fragment };
}

/** The run report JSON a link carries (to be opened as any report is), or why the link is refused. */
export async function decodeRunShare(
  fragment: string,
): Promise<{ ok: true; json: Uint8Array } | { ok: false; message: string }> {
  const body = fragment.startsWith(RUN_SHARE_PREFIX) ? fragment.slice(RUN_SHARE_PREFIX.length) : fragment;
  if (body.length > MAX_RUN_SHARE_ENCODED)
    return {
      ok: false,
      message: `This run link is too large (${body.length} characters; at most ${MAX_RUN_SHARE_ENCODED}).`,
    };
  const bytes = fromBase64Url(body);
  if (!bytes || bytes.length === 0)
    return { ok: false, message: 'This run link is corrupt: its fragment is not base64url text.' };
  if (toBase64Url(bytes) !== body)
    return { ok: false, message: 'This run link was changed or cut: its fragment is not as written.' };
  let json: Uint8Array | 'too_large';
  try {
    json = await pump(streamOf(bytes).pipeThrough(new DecompressionStream('deflate-raw')), MAX_RUN_SHARE_DECODED);
  } catch {
    return { ok: false, message: 'This run link is corrupt: it does not decompress (was it cut short when copied?).' };
  }
  if (json === 'too_large')
    return {
      ok: false,
      message: `This run link expands to more than ${MAX_RUN_SHARE_DECODED} bytes and was not opened.`,
    };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
  } catch {
    return { ok: false, message: 'This run link is corrupt: its content is not JSON.' };
  }
  const v = value as { v?: unknown; kind?: unknown; report?: unknown; checksum?: unknown } | null;
  if (
    !v ||
    typeof v !== 'object' ||
    v.v !== 1 ||
    v.kind !== 'run' ||
    typeof v.checksum !== 'string' ||
    typeof v.report !== 'object' ||
    v.report === null
  )
    return { ok: false, message: 'This link is not a SQL Verdict run (unknown version or missing fields).' };
  if ((await checksumOf({ v: 1, kind: 'run', report: v.report })) !== v.checksum)
    return {
      ok: false,
      message: 'This run link was changed or cut: its checksum does not match its content, so it was not opened.',
    };
  return { ok: true, json: new TextEncoder().encode(JSON.stringify(v.report)) };
}
