/**
 * Score one query schema-agnostically (STEF) on the Monitor view: question,
 * optional enriched question, SQL, dialect and optional R_app, scored in the
 * app worker after a pause in typing (or on demand). With the AI judge on,
 * the worker asks it for the semantic verdict; the rules answer otherwise.
 */
import { messageOf, type Outcome, type VerdictError } from '../../core/errors.ts';
import type { ProviderConfig } from '../../core/judge/index.ts';
import { parseRules } from '../../core/stef/rules.ts';
import type { AppRules, StefInput, StefReport } from '../../core/stef/index.ts';
import type { AppClient } from './app-client.ts';

export type StefBackend = Pick<AppClient, 'stefScore'>;

/** The key under which main.ts hands the instance to the Monitor view (Svelte context). */
export const STEF_SCORE_CONTEXT = 'sql-verdict.stef-score';

export const STEF_DEBOUNCE_MS = 500;

export type StefDialect = NonNullable<StefInput['dialect']>;

export class StefScore {
  question = $state('How many orders were cancelled in 2025?');
  enriched = $state('');
  sql = $state(
    "SELECT count(*) FROM orders WHERE status = 'cancelled' AND order_date >= DATE '2025-01-01' AND order_date < DATE '2026-01-01' AND tenant_id = 7",
  );
  dialect = $state<StefDialect>('duckdb');
  /** R_app as JSON text; empty means no rules. */
  rulesText = $state('');
  report = $state.raw<StefReport | null>(null);
  error = $state.raw<VerdictError | null>(null);
  running = $state(false);
  /** The judge model asked for the shown report, or null when the rules alone scored it. */
  judgeModel = $state<string | null>(null);

  private timer: ReturnType<typeof setTimeout> | null = null;
  private seq = 0;

  /** `judge` returns the provider to ask for each score (null: rules only). */
  constructor(
    private readonly backend: StefBackend,
    private readonly judge: () => ProviderConfig | null = () => null,
  ) {}

  /** Called on every edit: scores after a pause in typing. */
  schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.score(), STEF_DEBOUNCE_MS);
  }

  /** R_app from the text box; the error names the field (`R_app benign_filters[1].column: …`). */
  rules(): Outcome<AppRules | undefined> {
    if (!this.rulesText.trim()) return { ok: true, value: undefined };
    let raw: unknown;
    try {
      raw = JSON.parse(this.rulesText);
    } catch (thrown) {
      return {
        ok: false,
        error: { code: 'input.invalid', message: `R_app is not valid JSON: ${messageOf(thrown)}`, location: 'rules' },
      };
    }
    const parsed = parseRules(raw);
    // The message already names the R_app field; the location names the input box.
    return parsed.ok ? parsed : { ok: false, error: { ...parsed.error, location: 'rules' } };
  }

  async score(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const seq = ++this.seq;
    const rules = this.rules();
    if (!rules.ok) {
      this.report = null;
      this.error = rules.error;
      // A call still in flight is now stale (seq moved on) and will not clear this.
      this.running = false;
      return;
    }
    const input: StefInput = {
      question: this.question,
      enriched_question: this.enriched.trim() ? this.enriched : null,
      sql: this.sql,
      dialect: this.dialect,
      ...(rules.value ? { rules: rules.value } : {}),
    };
    const judge = this.judge();
    this.running = true;
    try {
      const outcome = await this.backend.stefScore({ input, ...(judge ? { judge } : {}) });
      if (seq !== this.seq) return;
      this.report = outcome.ok ? outcome.value : null;
      this.error = outcome.ok ? null : outcome.error;
      this.judgeModel = outcome.ok && judge ? judge.model : null;
    } catch (thrown) {
      if (seq === this.seq) {
        this.report = null;
        this.error = { code: 'execution.error', message: messageOf(thrown) };
      }
    } finally {
      if (seq === this.seq) this.running = false;
    }
  }
}
