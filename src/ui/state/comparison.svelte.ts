/**
 * The playground: one comparison (SPEC 1.4) on a built-in fixture, graded
 * as you type (debounced), shareable as a link.
 */
import { messageOf, type Outcome, type VerdictError } from '../../core/errors.ts';
import type { EvaluationReport } from '../../core/report/report.ts';
import type { ProviderConfig } from '../../core/judge/index.ts';
import type { CaseResults } from '../../worker/app.worker.ts';
import type { AppClient } from './app-client.ts';
import type { FullResultsBackend } from './full-results.svelte.ts';
import { BUILT_IN_FIXTURES } from './builtins.ts';
import { decodeShare, encodeShare, type SharedComparison } from './share.ts';

/** The built-in fixture's content digest (fixtures/fixtures.json), or null for another fixture. */
export function fixtureDigest(name: string): string | null {
  return BUILT_IN_FIXTURES.find((f) => f.name === name)?.contentDigest ?? null;
}

export type Backend = Pick<AppClient, 'compare' | 'caseResults'>;

export const DEBOUNCE_MS = 500;

/** A comparison where the AI judge disagreed with the deterministic verdict. */
export interface ReviewItem {
  seq: number;
  fixture: string;
  question: string;
  expectedSql: string;
  actualSql: string;
  orderMatters: boolean;
  deterministic: 'pass' | 'fail' | 'undecided';
  advisory: 'pass' | 'fail';
  model: string | null;
}

export class Comparison {
  fixture = $state(BUILT_IN_FIXTURES[0]?.name ?? 'retail');
  question = $state('How many orders were cancelled?');
  expectedSql = $state("SELECT count(*) AS cancelled_orders FROM orders WHERE status = 'cancelled'");
  actualSql = $state("SELECT count(*) AS cancelled FROM orders WHERE status IN ('cancelled', 'returned')");
  orderMatters = $state(false);
  /** A shared case's shape and config: they decide its verdict, so they stay until another link is opened. */
  shape = $state<string | null>(null);
  config = $state.raw<Record<string, unknown> | null>(null);
  /** Neighbour databases per comparison (0: off); sent as config.neighbours. */
  neighbours = $state(0);
  /** Both queries on the other engines too (config.cross_engine): the verdict per engine. */
  crossEngine = $state(false);
  /** The engine both queries run on: the built-in fixtures load on DuckDB, SQLite and PostgreSQL (PGlite). */
  engine = $state<'duckdb' | 'sqlite' | 'pglite'>('duckdb');
  report = $state.raw<EvaluationReport | null>(null);
  error = $state.raw<VerdictError | null>(null);
  running = $state(false);
  /** A share link that could not be opened. */
  linkError = $state<string | null>(null);
  /** What to know about the share link that was opened (e.g. an older link that names no engine). */
  linkNotice = $state<string | null>(null);
  /** The case a shared link came from. */
  sharedCase = $state<string | null>(null);

  /** Disagreeing cases seen on this page, newest first (kept in memory). */
  reviewQueue = $state.raw<ReviewItem[]>([]);

  private timer: ReturnType<typeof setTimeout> | null = null;
  private seq = 0;

  /** `judge` returns the provider to use for each comparison (null: no judge). */
  constructor(
    private readonly backend: Backend,
    private readonly judge: () => ProviderConfig | null = () => null,
  ) {}

  /** Where the case and playground views re-run a comparison in full ("Show full results"). */
  get fullResultsBackend(): FullResultsBackend {
    return { caseResults: (input) => this.backend.caseResults(input) as Promise<Outcome<CaseResults>> };
  }

  /** Called on every edit: grades after a pause in typing. */
  schedule(): void {
    this.lastLink = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.grade(), DEBOUNCE_MS);
  }

  async grade(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const seq = ++this.seq;
    if (!this.expectedSql.trim() || !this.actualSql.trim()) {
      // The last verdict was about SQL no longer in the editor: it must not stay on screen as if it were this one's.
      this.report = null;
      this.running = false;
      this.error = {
        code: 'input.invalid',
        message: `Write the ${this.expectedSql.trim() ? 'candidate' : 'reference'} SQL to grade this comparison.`,
      };
      return;
    }
    this.running = true;
    const judge = this.judge();
    try {
      const outcome = await this.backend.compare({
        engine: this.engine,
        fixture: this.fixture,
        question: this.question,
        expectedSql: this.expectedSql,
        actualSql: this.actualSql,
        orderMatters: this.orderMatters,
        shape: this.shape,
        config: this.gradedConfig(),
        ...(judge ? { judge } : {}),
      });
      if (seq !== this.seq) return;
      this.report = outcome.ok ? outcome.value : null;
      this.error = outcome.ok ? null : outcome.error;
      if (outcome.ok) this.queueIfDisagreeing(outcome.value, seq);
    } catch (thrown) {
      if (seq === this.seq) this.error = { code: 'execution.error', message: messageOf(thrown) };
    } finally {
      if (seq === this.seq) this.running = false;
    }
  }

  private queueIfDisagreeing(report: EvaluationReport, seq: number): void {
    if (report.verdict_consistency_flag !== false || !report.ai_advisory_verdict) return;
    const item: ReviewItem = {
      seq,
      fixture: this.fixture,
      question: this.question,
      expectedSql: this.expectedSql,
      actualSql: this.actualSql,
      orderMatters: this.orderMatters,
      deterministic: report.deterministic_verdict,
      advisory: report.ai_advisory_verdict,
      model: report.judge?.model_id ?? report.judge?.model ?? null,
    };
    const same = (r: ReviewItem) =>
      r.fixture === item.fixture &&
      r.expectedSql === item.expectedSql &&
      r.actualSql === item.actualSql &&
      r.orderMatters === item.orderMatters;
    this.reviewQueue = [item, ...this.reviewQueue.filter((r) => !same(r))];
  }

  /** Reopen a queued case in the editor and grade it again. */
  reopen(item: ReviewItem): void {
    this.fixture = item.fixture;
    this.question = item.question;
    this.expectedSql = item.expectedSql;
    this.actualSql = item.actualSql;
    this.orderMatters = item.orderMatters;
    void this.grade();
  }

  /** The comparison as the editor grades it: the engine and the neighbours setting decide the verdict too. */
  current(): SharedComparison {
    return {
      v: 3,
      engine: this.engine,
      fixture: this.fixture,
      fixtureDigest: fixtureDigest(this.fixture),
      question: this.question,
      expectedSql: this.expectedSql,
      actualSql: this.actualSql,
      orderMatters: this.orderMatters,
      shape: this.shape,
      config: this.gradedConfig(),
    };
  }

  /** The case's config with this page's own oracle settings (Neighbours, Other engines) over it. */
  private gradedConfig(): Record<string, unknown> | null {
    // Any count but 0 (and an emptied field, null) goes to the core, which names one it cannot take: a negative one
    // was dropped here, and the verdict on the fixture alone showed as if Neighbours were off.
    const n = this.neighbours as number | null | undefined;
    const own = {
      ...(typeof n === 'number' && n !== 0 ? { neighbours: n } : {}),
      ...(this.crossEngine ? { cross_engine: true } : {}),
    };
    return Object.keys(own).length ? { ...(this.config ?? {}), ...own } : this.config;
  }

  /**
   * Make a share link for `payload` and put it in the clipboard (when allowed). Returns what happened, in words, and the
   * link, to show. Does not touch this comparison: the case view shares a case without changing the playground.
   */
  async makeLink(payload: SharedComparison): Promise<{ message: string; url: string | null }> {
    const encoded = await encodeShare(payload);
    if (!encoded.ok) return { message: encoded.message, url: null };
    const url = `${location.origin}${location.pathname}${location.search}${encoded.fragment}`;
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(url);
      return { message: 'Link copied to the clipboard (and shown below).', url };
    } catch {
      return { message: 'Link ready below (copy it by hand).', url };
    }
  }

  /** Share the comparison in the editor; the link is kept in lastLink until the next edit, so a stale one is never shown. */
  async share(): Promise<string> {
    this.lastLink = null;
    const made = await this.makeLink(this.current());
    this.lastLink = made.url;
    return made.message;
  }

  lastLink = $state<string | null>(null);

  /** Open a share link: restore the comparison and grade it. */
  async open(fragment: string): Promise<boolean> {
    const decoded = await decodeShare(fragment);
    if (!decoded.ok) {
      this.linkError = decoded.message;
      return false;
    }
    const v = decoded.value;
    if (!BUILT_IN_FIXTURES.some((f) => f.name === v.fixture)) {
      this.linkError = `This share link names fixture "${v.fixture}", which is not built into this app.`;
      return false;
    }
    const digest = fixtureDigest(v.fixture);
    if (v.fixtureDigest !== null && digest !== null && v.fixtureDigest !== digest) {
      this.linkError = `This share link was made on another version of fixture "${v.fixture}" (content digest ${v.fixtureDigest.slice(0, 12)}…, this app has ${digest.slice(0, 12)}…): its verdict would not be the same, so it was not opened.`;
      return false;
    }
    this.linkError = null;
    this.linkNotice = decoded.notice ?? null;
    this.engine = v.engine;
    // Neighbours and Other engines have their own fields here; kept in the config too they could not be turned off.
    // A value a field cannot hold stays in the config, where grading names it as an invalid setting.
    const rest: Record<string, unknown> = { ...(v.config ?? {}) };
    const { neighbours, cross_engine: crossEngine } = rest;
    this.neighbours =
      typeof neighbours === 'number' && Number.isInteger(neighbours) && neighbours >= 0 ? neighbours : 0;
    if (this.neighbours === neighbours) delete rest.neighbours;
    this.crossEngine = crossEngine === true;
    if (typeof crossEngine === 'boolean') delete rest.cross_engine;
    this.fixture = v.fixture;
    this.question = v.question;
    this.expectedSql = v.expectedSql;
    this.actualSql = v.actualSql;
    this.orderMatters = v.orderMatters;
    this.shape = v.shape;
    this.config = v.config && Object.keys(rest).length ? rest : null;
    this.sharedCase = v.caseId ?? null;
    this.report = null;
    void this.grade();
    return true;
  }
}
