/**
 * Filtering, searching and sorting a run's case tables (failures, all
 * cases), and the list the case view's Previous/Next follow: the one the
 * reader opened the case from, in its current filter and sort order. Kept
 * per run and table in module state, so going back to the results page
 * finds the filters as they were.
 */
import { DIFFICULTIES } from '../../core/vocabulary.ts';
import type { CaseReport } from '../../core/run/grade-run.ts';

export interface CaseRow {
  id: string;
  outcome: string;
  reason: string;
  reason_code: string;
  fixture: string;
  tags: string[];
  difficulty: string;
  query: string;
  question: string;
  /** Run vs run only: A's outcome and the change from A to B. */
  a_outcome?: string;
  change?: string;
}

export type SortKey = 'corpus' | 'id' | 'outcome' | 'reason_code' | 'fixture' | 'difficulty' | 'change';
export const SORT_LABEL: Record<SortKey, string> = {
  corpus: 'corpus order',
  id: 'case id',
  outcome: 'outcome',
  reason_code: 'reason code',
  fixture: 'fixture',
  difficulty: 'difficulty',
  change: 'change (A → B)',
};
/** The sorts a one-run table offers (change is the run-vs-run table's). */
export const RUN_SORTS: SortKey[] = ['corpus', 'id', 'outcome', 'reason_code', 'fixture', 'difficulty'];
const CHANGE_ORDER = ['regressed', 'fixed', 'unchanged_wrong', 'unchanged_right', 'not_graded'];
const DIFFICULTY_ORDER: readonly string[] = DIFFICULTIES;

export const ALL = '';

export class CaseFilter {
  outcome = $state(ALL);
  reasonCode = $state(ALL);
  fixture = $state(ALL);
  tag = $state(ALL);
  difficulty = $state(ALL);
  change = $state(ALL);
  text = $state('');
  sort = $state<SortKey>('corpus');
  descending = $state(false);
  /** The keyboard cursor (a case id), highlighted in the table. */
  cursor = $state<string | null>(null);

  constructor(sort: SortKey = 'corpus') {
    this.sort = sort;
  }

  get active(): boolean {
    return !!(
      this.outcome ||
      this.reasonCode ||
      this.fixture ||
      this.tag ||
      this.difficulty ||
      this.change ||
      this.text.trim()
    );
  }

  clear(): void {
    this.outcome = this.reasonCode = this.fixture = this.tag = this.difficulty = this.change = ALL;
    this.text = '';
  }

  apply(rows: readonly CaseRow[]): CaseRow[] {
    const q = this.text.trim().toLowerCase();
    const out = rows.filter(
      (r) =>
        (!this.outcome || r.outcome === this.outcome) &&
        (!this.reasonCode || r.reason_code === this.reasonCode) &&
        (!this.fixture || r.fixture === this.fixture) &&
        (!this.tag || r.tags.includes(this.tag)) &&
        (!this.difficulty || r.difficulty === this.difficulty) &&
        (!this.change || r.change === this.change) &&
        (!q ||
          [r.id, r.reason, r.reason_code, r.query, r.question, r.fixture, ...r.tags].some((t) =>
            t.toLowerCase().includes(q),
          )),
    );
    if (this.sort !== 'corpus') {
      const key = this.sort;
      const rank = (r: CaseRow) =>
        key === 'difficulty'
          ? String(DIFFICULTY_ORDER.indexOf(r.difficulty) + 100)
          : key === 'change'
            ? String(CHANGE_ORDER.indexOf(r.change ?? '') + 100)
            : r[key];
      // Stable: ties keep corpus order.
      out.sort((a, b) => rank(a).localeCompare(rank(b)));
    }
    if (this.descending) out.reverse();
    return out;
  }
}

/** The choices each filter offers: values present in the rows, with their counts. */
export function facets(
  rows: readonly CaseRow[],
): Record<'outcome' | 'reason_code' | 'fixture' | 'tag' | 'difficulty' | 'change', [string, number][]> {
  const count = (values: string[]) => {
    const m: Record<string, number> = {};
    for (const v of values) if (v) m[v] = (m[v] ?? 0) + 1;
    return Object.entries(m).sort((a, b) => a[0].localeCompare(b[0]));
  };
  return {
    outcome: count(rows.map((r) => r.outcome)),
    reason_code: count(rows.map((r) => r.reason_code)),
    fixture: count(rows.map((r) => r.fixture)),
    tag: count(rows.flatMap((r) => r.tags)),
    difficulty: count(rows.map((r) => r.difficulty)).sort(
      (a, b) => DIFFICULTY_ORDER.indexOf(a[0]) - DIFFICULTY_ORDER.indexOf(b[0]),
    ),
    change: count(rows.map((r) => r.change ?? '')).sort(
      (a, b) => CHANGE_ORDER.indexOf(a[0]) - CHANGE_ORDER.indexOf(b[0]),
    ),
  };
}

/** A case report as a table row; tags come from the summary's per-case results. */
export function caseRow(c: CaseReport, tags: readonly string[] | undefined): CaseRow {
  return {
    id: c.id,
    outcome: c.outcome,
    reason: c.reason ?? '',
    reason_code: c.reason_code ?? '',
    fixture: c.fixture,
    tags: [...(tags ?? [])],
    difficulty: c.difficulty ?? '',
    query: c.query ?? '',
    question: c.question,
  };
}

// Not reactive itself: each CaseFilter holds its own $state.
const filters: Record<string, CaseFilter> = {};

/** The filter of one table of one run (kept while the page lives). */
export function filterFor(runId: string, table: string, sort: SortKey = 'corpus'): CaseFilter {
  const key = `${runId}\u0000${table}`;
  return (filters[key] ??= new CaseFilter(sort));
}

interface NavList {
  ids: string[];
  label: string;
  /** Where Esc and the back link go (the results page when absent). */
  back?: { href: string; label: string };
}

const navLists = $state<Record<string, NavList>>({});

/** Called when a case is opened from a table: Previous/Next then follow that table's current rows. */
export function rememberList(runId: string, ids: string[], label: string, back?: NavList['back']): void {
  navLists[runId] = back ? { ids, label, back } : { ids, label };
}

/** The Compare page's two runs, kept while the page lives: back from a case, the same comparison and filters. */
export const compareChoice = $state({ a: '', b: '' });

export function navList(runId: string): NavList | null {
  return navLists[runId] ?? null;
}

let pendingReturn: { runId: string; label: string; caseId: string } | null = null;

/**
 * The case view goes back (Esc) to the list it was opened from: that list takes the keyboard focus again, its cursor
 * on the case last shown, so j / k / Enter go on from there (they did nothing until the list was clicked or tabbed to).
 */
export function returnToList(runId: string, label: string, caseId: string): void {
  pendingReturn = { runId, label, caseId };
}

/** Called by a list as it is shown: the case to put the cursor on and focus, when the case view came back to it. */
export function takeReturn(runId: string, label: string): string | null {
  const back = pendingReturn;
  if (!back || back.runId !== runId || back.label !== label) return null;
  pendingReturn = null;
  return back.caseId;
}

/** Focus a case list's box with its cursor row in view (after a return from the case view). */
export function focusList(box: HTMLElement): void {
  // The all-cases table is folded in a <details>, closed again when the results page is shown anew.
  const folded = box.closest('details');
  if (folded && !folded.open) folded.open = true;
  box.focus({ preventScroll: true });
  requestAnimationFrame(() => box.querySelector('[data-cursor="true"]')?.scrollIntoView({ block: 'nearest' }));
}
