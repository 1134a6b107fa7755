/**
 * Strict UTF-8 decoding for corpus and run files (TextDecoder is not part of
 * the core's ES2022 library). Invalid bytes are an error with their position,
 * not a replacement character.
 */

export type Utf8Result =
  { ok: true; text: string } | { ok: false; offset: number; line: number; column: number; reason: string };

export function decodeUtf8Strict(bytes: Uint8Array): Utf8Result {
  const parts: string[] = [];
  let chunk: number[] = [];
  let line = 1;
  let lineStart = 0;
  const failAt = (offset: number, reason: string): Utf8Result => ({
    ok: false,
    offset,
    line,
    column: offset - lineStart + 1,
    reason,
  });
  // UTF-16 (PowerShell's ">" writes it) came out as "byte 0xff cannot start a UTF-8 sequence" with
  // its mark and, without, as valid UTF-8 full of NULs (a JSON or YAML error per line).
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)))
    return failAt(0, 'the file is UTF-16 (byte-order mark); save it as UTF-8');
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i]!;
    if (b === 0) return failAt(i, 'a NUL byte (UTF-16 without a byte-order mark?); save the file as UTF-8');
    let code: number;
    let len: number;
    if (b < 0x80) {
      code = b;
      len = 1;
    } else if (b >= 0xc2 && b <= 0xdf) {
      code = b & 0x1f;
      len = 2;
    } else if (b >= 0xe0 && b <= 0xef) {
      code = b & 0x0f;
      len = 3;
    } else if (b >= 0xf0 && b <= 0xf4) {
      code = b & 0x07;
      len = 4;
    } else {
      return failAt(i, `byte 0x${b.toString(16).padStart(2, '0')} cannot start a UTF-8 sequence`);
    }
    if (i + len > n) return failAt(i, 'truncated UTF-8 sequence at the end of the file');
    for (let k = 1; k < len; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80)
        return failAt(i, `byte 0x${c.toString(16).padStart(2, '0')} is not a UTF-8 continuation byte`);
      code = (code << 6) | (c & 0x3f);
    }
    if ((len === 3 && code < 0x800) || (len === 4 && (code < 0x10000 || code > 0x10ffff)))
      return failAt(i, 'overlong or out-of-range UTF-8 sequence');
    if (code >= 0xd800 && code <= 0xdfff) return failAt(i, 'UTF-8 encoded surrogate');
    if (code === 0x0a) {
      line++;
      lineStart = i + 1;
    }
    if (code < 0x10000) chunk.push(code);
    else {
      const v = code - 0x10000;
      chunk.push(0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
    }
    if (chunk.length >= 8192) {
      parts.push(String.fromCharCode(...chunk));
      chunk = [];
    }
    i += len;
  }
  parts.push(String.fromCharCode(...chunk));
  let text = parts.join('');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { ok: true, text };
}
