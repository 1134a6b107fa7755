/**
 * A PostgreSQL result decoded batch by batch under the row cap and the result
 * byte budget (ExecuteOptions.maxResultBytes, counted on decoded cells as
 * value/size.ts counts them for every engine). The session feeds it the rows
 * of each FETCH from a cursor and asks for the next batch only while both caps
 * hold, so a result past either is never fetched whole, in PostgreSQL or here.
 */
import type { Cell, Column } from '../../core/value/kind.ts';
import { rowBytes } from '../../core/value/size.ts';
import type { PgField } from './driver.ts';
import { recordColumn } from './records.ts';
import { cellOf, columnOf, shapeArrayColumn, type TypeCatalog } from './types.ts';

/** A result whose record columns arrive as JSON text (records.ts): the query's own names and those columns' types. */
export interface RecordsAsJson {
  names: string[];
  /** Column index → PostgreSQL's name of its record or composite type. */
  types: Map<number, string>;
}

/** The first FETCH: small enough that a result of huge rows stops early, large enough that most results take one. */
export const FIRST_BATCH = 100;
/** At most this many rows per FETCH, however small the rows: one batch's text is held whole before it is decoded. */
export const MAX_BATCH = 10_000;

export type Overflow = 'rows' | 'bytes' | null;

export class ResultBuilder {
  private columns: Column[] | null = null;
  readonly rows: Cell[][] = [];
  /** Decoded bytes held so far (value/size.ts). */
  bytes = 0;
  /**
   * PostgreSQL's text of each array column, kept for shapeArrayColumn (a column mixing dimensions stays text), and
   * each record column's JSON, read whole by recordColumn.
   */
  private readonly keptTexts = new Map<number, (string | null)[]>();

  constructor(
    private readonly catalog: TypeCatalog,
    private readonly maxRows = Number.MAX_SAFE_INTEGER,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
    private readonly records?: RecordsAsJson,
  ) {}

  private columnsOf(fields: PgField[]): Column[] {
    const records = this.records;
    if (!records) return fields.map((f) => columnOf(f.name, f.oid, this.catalog));
    return fields.map((f, i) => {
      const name = records.names[i] ?? f.name;
      const type = records.types.get(i);
      // Its JSON text until finish() reads the whole column.
      return type === undefined ? columnOf(name, f.oid, this.catalog) : { name, engineType: type, kind: 'other' };
    });
  }

  /** Decode a batch; the cap it passes, if any (the row that passed it is not kept). */
  add(batch: { fields: PgField[]; rows: (string | null)[][] }): Overflow {
    const columns = (this.columns ??= this.columnsOf(batch.fields));
    columns.forEach((c, i) => {
      if ((c.kind === 'list' || this.records?.types.has(i)) && !this.keptTexts.has(i)) this.keptTexts.set(i, []);
    });
    for (const raw of batch.rows) {
      if (this.rows.length >= this.maxRows) return 'rows';
      const row = raw.map((text, i) => cellOf(columns[i]!, text));
      this.bytes += rowBytes(row);
      if (this.bytes > this.maxBytes) return 'bytes';
      this.rows.push(row);
      for (const [i, texts] of this.keptTexts) texts.push(raw[i]!);
    }
    return null;
  }

  /** Rows to ask for next: about what the rest of the budget holds at the rows' size so far, one past the row cap at most. */
  nextBatch(): number {
    const rowsLeft = this.maxRows + 1 - this.rows.length;
    if (this.rows.length === 0) return Math.max(1, Math.min(FIRST_BATCH, rowsLeft));
    const perRow = this.bytes / this.rows.length;
    const fits = Number.isFinite(this.maxBytes) ? Math.floor((this.maxBytes - this.bytes) / perRow) + 1 : MAX_BATCH;
    return Math.max(1, Math.min(MAX_BATCH, fits, rowsLeft));
  }

  /** The columns and rows, array columns shaped by the dimensions of all their values. */
  finish(): { columns: Column[]; rows: Cell[][] } {
    const columns = [...(this.columns ?? [])];
    for (const [i, texts] of this.keptTexts) {
      if (this.records?.types.has(i)) {
        const read = recordColumn(columns[i]!.name, columns[i]!.engineType, texts);
        if (read) {
          columns[i] = read.column;
          read.cells.forEach((cell, r) => (this.rows[r]![i] = cell));
        }
        continue;
      }
      const shaped = shapeArrayColumn(
        columns[i]!,
        this.rows.map((r) => r[i]!),
        texts,
      );
      columns[i] = shaped.column;
      shaped.cells.forEach((cell, r) => (this.rows[r]![i] = cell));
    }
    return { columns, rows: this.rows };
  }
}
