/**
 * R_app: validation of the application rules (the same constraints as
 * docs/r_app.schema.json, checked by hand so the core needs no schema library)
 * and the term lookups the extraction uses.
 */
import type { Outcome } from '../errors.ts';
import { fail, ok } from '../errors.ts';
import type { AppRules } from './types.ts';
import { VOCABULARIES } from './vocabulary/en.ts';

export const DEFAULT_SAFETY_LIMIT = 1000;

const KEYS = [
  'columns',
  'synonyms',
  'values',
  'metrics',
  'benign_filters',
  'safety_limit_threshold',
  'default_order',
  'reference_date',
  'language',
  '$schema',
  'description',
];
const FUNCS = ['SUM', 'AVG', 'COUNT', 'MIN', 'MAX'];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const bad = (location: string, message: string) =>
  fail<AppRules>('input.invalid', `R_app ${location}: ${message}`, { location });

function stringMap(v: unknown, where: string): Outcome<AppRules> | null {
  if (!isObject(v)) return bad(where, 'must be an object of strings.');
  for (const [k, x] of Object.entries(v))
    if (typeof x !== 'string' || !x.trim()) return bad(`${where}.${k}`, 'must be a non-empty string.');
  return null;
}

function validDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** Check R_app (parsed JSON); the error's location names the field (e.g. `benign_filters[1].column`). */
export function parseRules(raw: unknown): Outcome<AppRules> {
  if (!isObject(raw)) return bad('(root)', 'must be a JSON object.');
  for (const k of Object.keys(raw))
    if (!KEYS.includes(k))
      return bad(k, `is not a known field (known: ${KEYS.filter((x) => !x.startsWith('$')).join(', ')}).`);
  for (const k of ['columns', 'synonyms'] as const)
    if (raw[k] !== undefined) {
      const e = stringMap(raw[k], k);
      if (e) return e;
    }
  if (raw.values !== undefined) {
    if (!isObject(raw.values)) return bad('values', 'must be an object.');
    for (const [k, v] of Object.entries(raw.values)) {
      if (!isObject(v)) return bad(`values.${k}`, 'must be an object {column, value}.');
      if (typeof v.column !== 'string' || !v.column) return bad(`values.${k}.column`, 'must be a non-empty string.');
      if (typeof v.value !== 'string') return bad(`values.${k}.value`, 'must be a string.');
      if (v.operator !== undefined && typeof v.operator !== 'string')
        return bad(`values.${k}.operator`, 'must be a string.');
    }
  }
  if (raw.metrics !== undefined) {
    if (!isObject(raw.metrics)) return bad('metrics', 'must be an object.');
    for (const [k, v] of Object.entries(raw.metrics)) {
      if (!isObject(v)) return bad(`metrics.${k}`, 'must be an object {func, column}.');
      if (typeof v.func !== 'string' || !FUNCS.includes(v.func.toUpperCase()))
        return bad(`metrics.${k}.func`, `must be one of ${FUNCS.join(', ')}.`);
      if (v.column !== undefined && typeof v.column !== 'string')
        return bad(`metrics.${k}.column`, 'must be a string.');
    }
  }
  if (raw.benign_filters !== undefined) {
    if (!Array.isArray(raw.benign_filters)) return bad('benign_filters', 'must be an array.');
    for (const [i, f] of raw.benign_filters.entries()) {
      if (!isObject(f)) return bad(`benign_filters[${i}]`, 'must be an object {column, operator?, reason?}.');
      if (typeof f.column !== 'string' || !f.column)
        return bad(`benign_filters[${i}].column`, 'must be a non-empty string.');
      for (const k of ['operator', 'reason'])
        if (f[k] !== undefined && typeof f[k] !== 'string')
          return bad(`benign_filters[${i}].${k}`, 'must be a string.');
      for (const k of Object.keys(f))
        if (!['column', 'operator', 'reason'].includes(k))
          return bad(`benign_filters[${i}].${k}`, 'is not a known field.');
    }
  }
  const t = raw.safety_limit_threshold;
  if (t !== undefined && (typeof t !== 'number' || !Number.isInteger(t) || t < 1))
    return bad('safety_limit_threshold', 'must be a positive integer.');
  if (raw.default_order !== undefined) {
    const o = raw.default_order;
    if (!isObject(o)) return bad('default_order', 'must be an object {column?, direction?}.');
    if (o.column !== undefined && typeof o.column !== 'string') return bad('default_order.column', 'must be a string.');
    if (o.direction !== undefined && o.direction !== 'ASC' && o.direction !== 'DESC')
      return bad('default_order.direction', 'must be ASC or DESC.');
  }
  if (raw.reference_date !== undefined && (typeof raw.reference_date !== 'string' || !validDate(raw.reference_date)))
    return bad('reference_date', 'must be a date YYYY-MM-DD.');
  if (raw.language !== undefined && (typeof raw.language !== 'string' || !VOCABULARIES[raw.language]))
    return bad('language', `must be one of ${Object.keys(VOCABULARIES).join(', ')}.`);
  return ok(raw as AppRules);
}

export { validDate };
