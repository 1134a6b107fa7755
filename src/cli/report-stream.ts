/**
 * `--out` for a run, written as cases are graded: each case report goes to a
 * side file the moment it is done (in corpus order), and at the end the run
 * report is assembled around it. The file is byte for byte what
 * `prettyJson(report)` of the whole report would be, so every reader of run
 * reports (gate, baseline, diff, the app) reads it unchanged, while the CLI
 * never holds more than a few case reports in memory.
 */
import { closeSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { CaseReport, RunReport } from '../core/run/grade-run.ts';
import { makeOutputFolder, tempPathFor, type Io } from './io.ts';
import { prettyJson } from './json.ts';

/** The placeholder the cases take in the printed report (a string JSON cannot otherwise hold here). */
const CASES_MARK = '\u0000cases\u0000';
/** `cases` is a field of the top-level object: its items are indented by two levels. */
const ITEM_INDENT = '    ';
/** Where a case's pipeline report (`cases[i].report`) is printed: a grading worker prints it there already. */
export const CASE_REPORT_INDENT = `${ITEM_INDENT}  `;

export class RunReportWriter {
  private readonly target: string;
  private readonly side: string;
  private readonly partial: string;
  private readonly fd: number;
  private open = true;
  private written = 0;
  private next = 0;
  /** Cases that finished ahead of an earlier one (a judge answers out of order). */
  private readonly waiting = new Map<number, CaseReport>();

  constructor(file: string, io: Io) {
    this.target = path.resolve(io.cwd, file);
    makeOutputFolder(file, this.target);
    this.side = tempPathFor(this.target, 'cases.');
    this.partial = tempPathFor(this.target);
    this.fd = openSync(this.side, 'w');
  }

  /** A graded case, with its corpus index. */
  add(report: CaseReport, index: number): void {
    this.waiting.set(index, report);
    for (let c = this.waiting.get(this.next); c !== undefined; c = this.waiting.get(this.next)) {
      this.waiting.delete(this.next);
      this.next++;
      writeSync(this.fd, `${this.written ? ',\n' : ''}${ITEM_INDENT}${prettyJson(c, ITEM_INDENT)}`);
      this.written++;
    }
  }

  /** Write the whole report (its `cases` are the ones added) and remove the side file. */
  finish(report: RunReport): void {
    this.closeSide();
    const printed = prettyJson({ ...report, cases: CASES_MARK });
    const at = printed.indexOf(JSON.stringify(CASES_MARK));
    const partial = this.partial;
    const out = openSync(partial, 'w');
    try {
      writeSync(out, printed.slice(0, at));
      if (this.written === 0) writeSync(out, '[]');
      else {
        writeSync(out, '[\n');
        copyInto(this.side, out);
        writeSync(out, '\n  ]');
      }
      writeSync(out, `${printed.slice(at + JSON.stringify(CASES_MARK).length)}\n`);
      fsyncSync(out);
    } finally {
      closeSync(out);
    }
    renameSync(partial, this.target);
    rmSync(this.side, { force: true });
  }

  /** Nothing is written when the run fails. */
  abort(): void {
    this.closeSide();
    rmSync(this.side, { force: true });
    rmSync(this.partial, { force: true });
  }

  private closeSide(): void {
    // Once only: a closed descriptor's number may already belong to another file.
    if (this.open) closeSync(this.fd);
    this.open = false;
  }
}

function copyInto(file: string, out: number): void {
  const fd = openSync(file, 'r');
  const buffer = Buffer.alloc(1 << 20);
  try {
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) writeSync(out, buffer, 0, n);
  } finally {
    closeSync(fd);
  }
}
