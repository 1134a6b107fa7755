/**
 * SHA-256 of bytes, hex encoded: the one digest function for corpora,
 * fixture dumps and content digests. WebCrypto is a global in browsers and
 * in Node ≥ 19, so the same code runs in both without importing either.
 */
interface SubtleDigest {
  digest(algorithm: 'SHA-256', data: Uint8Array): Promise<ArrayBuffer>;
}

function subtle(): SubtleDigest {
  const crypto = (globalThis as unknown as { crypto?: { subtle?: SubtleDigest } }).crypto;
  if (!crypto?.subtle) throw new Error('WebCrypto (crypto.subtle) is not available in this runtime');
  return crypto.subtle;
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await subtle().digest('SHA-256', bytes));
  let out = '';
  for (const b of digest) out += b.toString(16).padStart(2, '0');
  return out;
}

/** UTF-8 bytes of a string (TextEncoder is not part of the core's ES2022 library). */
export function utf8Encode(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 3);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 0xd800 && code < 0xdc00 && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low < 0xe000) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (code >= 0xd800 && code < 0xe000) code = 0xfffd; // lone surrogate, as TextEncoder does
    if (code < 0x80) out[n++] = code;
    else if (code < 0x800) {
      out[n++] = 0xc0 | (code >> 6);
      out[n++] = 0x80 | (code & 63);
    } else if (code < 0x10000) {
      out[n++] = 0xe0 | (code >> 12);
      out[n++] = 0x80 | ((code >> 6) & 63);
      out[n++] = 0x80 | (code & 63);
    } else {
      out[n++] = 0xf0 | (code >> 18);
      out[n++] = 0x80 | ((code >> 12) & 63);
      out[n++] = 0x80 | ((code >> 6) & 63);
      out[n++] = 0x80 | (code & 63);
    }
  }
  return out.subarray(0, n);
}

export async function sha256Text(text: string): Promise<string> {
  return sha256Hex(utf8Encode(text));
}
