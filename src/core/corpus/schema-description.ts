/**
 * A fixture's schema description (`fixtures/<name>.schema.yaml`) read into a
 * shape a page can render: tables, columns with their descriptions, the
 * conventions questions rely on and the designed edge cases. Lenient on
 * purpose: the files are generated, and a field of an unexpected type is
 * shown as text rather than failing the whole description.
 */
import { parse } from 'yaml';
import { fail, messageOf, ok, type Outcome } from '../errors.ts';

export interface SchemaColumn {
  name: string;
  type: string | null;
  nullable: boolean | null;
  description: string | null;
  /** Allowed values, when the description lists them. */
  values: string[];
  /** "table.column" this column refers to. */
  references: string | null;
  unit: string | null;
}

export interface SchemaTable {
  name: string;
  description: string | null;
  primaryKey: string[];
  rowCount: number | null;
  columns: SchemaColumn[];
}

export interface SchemaDescription {
  fixture: string | null;
  title: string | null;
  summary: string | null;
  asOf: string | null;
  engines: string[];
  conventions: { name: string; text: string }[];
  tables: SchemaTable[];
  edgeCases: string[];
}

const text = (v: unknown): string | null =>
  v === undefined || v === null
    ? null
    : typeof v === 'string'
      ? v
      : v instanceof Date
        ? v.toISOString()
        : JSON.stringify(v);
const texts = (v: unknown): string[] =>
  Array.isArray(v) ? v.map((x) => text(x) ?? '') : v === undefined || v === null ? [] : [text(v) ?? ''];
const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export function parseSchemaDescription(yamlText: string, file: string): Outcome<SchemaDescription> {
  let doc: unknown;
  try {
    doc = parse(yamlText);
  } catch (thrown) {
    return fail('input.invalid', `${file}: not valid YAML (${messageOf(thrown)}).`, { location: file });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return fail('input.invalid', `${file}: a schema description must be a mapping.`, { location: file });
  const root = doc as Record<string, unknown>;
  const tables = Array.isArray(root.tables) ? root.tables : [];
  return ok({
    fixture: text(root.fixture),
    title: text(root.title),
    summary: text(root.summary),
    asOf: text(root.as_of),
    engines: texts(root.engines),
    conventions: Object.entries(record(root.conventions)).map(([name, v]) => ({ name, text: text(v) ?? '' })),
    tables: tables.map((raw, i): SchemaTable => {
      const t = record(raw);
      return {
        name: text(t.name) ?? `table #${i + 1}`,
        description: text(t.description),
        primaryKey: texts(t.primary_key),
        rowCount: typeof t.row_count === 'number' ? t.row_count : null,
        columns: (Array.isArray(t.columns) ? t.columns : []).map((rawCol, j): SchemaColumn => {
          const c = record(rawCol);
          return {
            name: text(c.name) ?? `column #${j + 1}`,
            type: text(c.type),
            nullable: typeof c.nullable === 'boolean' ? c.nullable : null,
            description: text(c.description),
            values: texts(c.values),
            references: text(c.references),
            unit: text(c.unit),
          };
        }),
      };
    }),
    edgeCases: texts(root.edge_cases),
  });
}
