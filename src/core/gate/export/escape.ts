/**
 * Escaping for untrusted text (case ids, reasons, the agent's SQL, model
 * names) in the exports. Nothing here trusts its input's shape.
 */

/** Drop code points XML 1.0 forbids (C0 controls but tab/LF/CR, lone surrogates, U+FFFE, U+FFFF). */
export function xmlSafeText(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i]! + text[i + 1]!;
        i++;
      } else out += '\uFFFD';
      continue;
    }
    if (c >= 0xdc00 && c <= 0xdfff) out += '\uFFFD';
    else if (c === 0x09 || c === 0x0a || c === 0x0d || (c >= 0x20 && c <= 0xfffd)) out += text[i]!;
    else out += '\uFFFD';
  }
  return out;
}

/** Element text content. */
export function xmlText(text: string): string {
  return xmlSafeText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A double-quoted attribute value; whitespace controls become character references so parsers keep them. */
export function xmlAttr(text: string): string {
  return xmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

/**
 * Inline Markdown text (a table cell, a list item): HTML-significant
 * characters become entities, Markdown punctuation is backslash-escaped,
 * line breaks become spaces so a cell stays one row.
 */
export function mdInline(text: string): string {
  return mdVisible(text)
    .replace(/\r\n?|\n/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~])/g, '\\$1');
}

/** Control characters (other than tab and line breaks) become U+FFFD, so nothing invisible reaches a page. */
export function mdVisible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\uFFFD');
}

/** Inline code whose fence is longer than any backtick run inside (CommonMark), on one line. */
export function mdCode(text: string): string {
  const flat = mdVisible(text).replace(/\r\n?|\n/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  // A pipe ends a table cell even inside code spans (GFM), so it is escaped there too.
  return `${fence}${pad}${flat.replace(/\|/g, '\\|')}${pad}${fence}`;
}

/** A fenced code block that the text cannot close early. */
export function mdFence(text: string, info = ''): string {
  const longest = Math.max(2, ...(text.match(/`{3,}/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${mdVisible(text)}\n${fence}`;
}
