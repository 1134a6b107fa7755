/**
 * A JSONL log as bytes, cut into lines chunk by chunk (the app worker reads a dropped file as a stream): the
 * CLI's line rules (`readLines` in src/cli/commands/stef.ts) — a line ends at LF, a CR before it is dropped, a
 * UTF-8 byte-order mark on line 1 is dropped, strict UTF-8 — except that a bad line is a line error, not the end
 * of the file, so the good lines around it are still monitored.
 */
import { decodeUtf8Strict } from '../corpus/utf8.ts';
import type { LogError } from './monitor.ts';

export type LogLine = { line: number; text: string } | { line: number; error: LogError };

export class LineSplitter {
  private rest: Uint8Array = new Uint8Array(0);
  private line = 0;
  private offset = 0;
  /** Bytes seen so far (progress). */
  bytes = 0;

  /** The lines a chunk completes (the tail waits for the next chunk or `end`). */
  *push(chunk: Uint8Array): Generator<LogLine> {
    this.bytes += chunk.length;
    let buf = chunk;
    if (this.rest.length) {
      buf = new Uint8Array(this.rest.length + chunk.length);
      buf.set(this.rest);
      buf.set(chunk, this.rest.length);
    }
    let start = 0;
    let nl: number;
    while ((nl = buf.indexOf(0x0a, start)) >= 0) {
      yield this.decode(buf.subarray(start, nl));
      start = nl + 1;
    }
    // A copy, so the chunk the tail points into can be collected.
    this.rest = buf.slice(start);
  }

  /** The last line when the file does not end with LF. */
  *end(): Generator<LogLine> {
    if (this.rest.length) yield this.decode(this.rest);
    this.rest = new Uint8Array(0);
  }

  private decode(bytes: Uint8Array): LogLine {
    const line = ++this.line;
    const at = this.offset;
    this.offset += bytes.length + 1;
    if (line === 1 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)))
      return { line, error: { line, field: null, message: 'the log is UTF-16 (byte-order mark); save it as UTF-8' } };
    if (bytes.indexOf(0) >= 0)
      return {
        line,
        error: { line, field: null, message: 'the line contains a NUL byte (UTF-16 without a byte-order mark?)' },
      };
    const end = bytes.length && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const decoded = decodeUtf8Strict(bytes.subarray(0, end));
    if (!decoded.ok)
      return {
        line,
        error: {
          line,
          field: null,
          message: `not UTF-8 (${decoded.reason} at column ${decoded.column}, byte ${at + decoded.offset})`,
        },
      };
    return { line, text: line === 1 ? decoded.text.replace(/^\uFEFF/, '') : decoded.text };
  }
}

/** Lines in a log's bytes as the splitter numbers them (LFs, plus a last line without LF): "line i of total". */
export function countLines(bytes: Uint8Array): number {
  let n = 0;
  let at = -1;
  while ((at = bytes.indexOf(0x0a, at + 1)) >= 0) n++;
  return bytes.length && bytes[bytes.length - 1] !== 0x0a ? n + 1 : n;
}
