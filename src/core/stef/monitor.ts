/**
 * Monitoring: a JSONL log of production queries → per agent version mean Φ,
 * P90, coverage, over time (day or ISO week buckets), worst queries.
 */
import { evaluateStef } from './evaluate.ts';
import type { AppRules, StefReport } from './types.ts';

export interface LogRecord {
  timestamp: string;
  agent_version: string;
  /** Q_u */
  question: string;
  /** Q_e */
  enriched_question?: string | null;
  /** S */
  sql: string;
}

export interface LogError {
  line: number;
  field: string | null;
  message: string;
}

const REQUIRED = ['timestamp', 'agent_version', 'question', 'sql'] as const;

/** One line of a JSONL log: a record, an error naming the line and field, or null for a blank line. */
export function parseLogLine(raw: string, line: number): { record: LogRecord } | { error: LogError } | null {
  if (!raw.trim()) return null;
  let o: unknown;
  try {
    o = JSON.parse(raw);
  } catch (thrown) {
    return { error: { line, field: null, message: `not valid JSON (${(thrown as Error).message})` } };
  }
  if (!o || typeof o !== 'object' || Array.isArray(o))
    return { error: { line, field: null, message: 'must be a JSON object' } };
  const r = o as Record<string, unknown>;
  for (const f of REQUIRED) {
    if (typeof r[f] !== 'string' || !(r[f] as string).trim())
      return { error: { line, field: f, message: `${f} must be a non-empty string` } };
  }
  if (Number.isNaN(Date.parse(r.timestamp as string)))
    return {
      error: { line, field: 'timestamp', message: `timestamp "${String(r.timestamp)}" is not an ISO date-time` },
    };
  if (r.enriched_question !== undefined && r.enriched_question !== null && typeof r.enriched_question !== 'string')
    return { error: { line, field: 'enriched_question', message: 'enriched_question must be a string or null' } };
  return {
    record: {
      timestamp: r.timestamp as string,
      agent_version: r.agent_version as string,
      question: r.question as string,
      enriched_question: (r.enriched_question as string | null | undefined) ?? null,
      sql: r.sql as string,
    },
  };
}

/** Parse a JSONL log; every malformed line is an error naming its line and field. Blank lines are skipped. */
export function parseLog(text: string): { records: LogRecord[]; errors: LogError[] } {
  const records: LogRecord[] = [];
  const errors: LogError[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const parsed = parseLogLine(raw, i + 1);
    if (!parsed) return;
    if ('error' in parsed) errors.push(parsed.error);
    else records.push(parsed.record);
  });
  return { records, errors };
}

/** Nearest-rank percentile (P90: the value at rank ⌈0.9 n⌉ of the sorted scores). */
export function percentile(values: number[], p: number): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!;
}

export function mean(values: number[]): number | null {
  if (!values.length) return null;
  return Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10;
}

export interface ScoredRecord {
  record: LogRecord;
  line: number;
  /** null when the query could not be evaluated (SQL does not parse, or the question yields no specification). */
  report: StefReport | null;
  reason: string | null;
}

export interface PeriodStats {
  period: string;
  queries: number;
  evaluated: number;
  coverage: number;
  mean_phi: number | null;
  p90_phi: number | null;
}

export interface AgentStats extends Omit<PeriodStats, 'period'> {
  agent_version: string;
  periods: PeriodStats[];
  worst: {
    timestamp: string;
    question: string;
    sql: string;
    phi: number | null;
    verdict: string | null;
    filter_status: string | null;
    reason: string | null;
  }[];
}

export interface MonitorReport {
  bucket: 'day' | 'week';
  queries: number;
  agents: AgentStats[];
}

/** Monday of the ISO week of a date, as YYYY-MM-DD (weeks are named by their Monday). */
export function weekOf(timestamp: string): string {
  const d = new Date(Date.parse(timestamp));
  const day = (d.getUTCDay() + 6) % 7;
  d.setUTCDate(d.getUTCDate() - day);
  return d.toISOString().slice(0, 10);
}

/** Score every record (rules only). */
export function scoreLog(records: LogRecord[], rules: AppRules = {}): ScoredRecord[] {
  return records.map((record, i) => ({ record, line: i + 1, ...scoreRecord(record, rules) }));
}

function scoreRecord(record: LogRecord, rules: AppRules): { report: StefReport | null; reason: string | null } {
  const r = evaluateStef({
    question: record.question,
    enriched_question: record.enriched_question,
    sql: record.sql,
    rules,
  });
  return { report: r.ok ? r.value : null, reason: r.ok ? null : r.error.message };
}

/**
 * Φ counts by value: the exact nearest-rank percentile in memory bounded by the number of distinct Φ values
 * (Φ is rounded to 0.1 on 0–100, so at most 1,001), whatever the number of queries. No sketch, no error.
 */
class Tally {
  queries = 0;
  evaluated = 0;
  /** Summed in log order, as the whole-array mean sums them, so the mean is the same to the last bit. */
  private sum = 0;
  private readonly counts = new Map<number, number>();

  add(phiValue: number | null): void {
    this.queries++;
    if (phiValue === null) return;
    this.evaluated++;
    this.sum += phiValue;
    this.counts.set(phiValue, (this.counts.get(phiValue) ?? 0) + 1);
  }

  percentile(p: number): number | null {
    if (!this.evaluated) return null;
    const rank = Math.max(1, Math.ceil((p / 100) * this.evaluated));
    let seen = 0;
    for (const v of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(v)!;
      if (seen >= rank) return v;
    }
    return null;
  }

  stats(): Omit<PeriodStats, 'period'> {
    return {
      queries: this.queries,
      evaluated: this.evaluated,
      coverage: this.queries ? Math.round((this.evaluated / this.queries) * 1000) / 1000 : 0,
      mean_phi: this.evaluated ? Math.round((this.sum / this.evaluated) * 10) / 10 : null,
      p90_phi: this.percentile(90),
    };
  }
}

type Worst = AgentStats['worst'][number];

/** The K lowest Φ (not evaluated first, ties in log order): what a stable sort of every query then slice(0, K) keeps. */
class WorstK {
  private readonly kept: { key: number; entry: Worst }[] = [];
  constructor(private readonly k: number) {}

  add(s: { record: LogRecord; report: StefReport | null; reason: string | null }): void {
    const key = s.report?.phi ?? -1;
    if (this.k <= 0) return;
    if (this.kept.length >= this.k && !(key < this.kept[this.kept.length - 1]!.key)) return;
    let at = this.kept.length;
    while (at > 0 && this.kept[at - 1]!.key > key) at--;
    this.kept.splice(at, 0, {
      key,
      entry: {
        timestamp: s.record.timestamp,
        question: s.record.question,
        sql: s.record.sql,
        phi: s.report?.phi ?? null,
        verdict: s.report?.semantic_verdict.label ?? null,
        filter_status: s.report?.filter_alignment.status ?? null,
        reason: s.reason,
      },
    });
    if (this.kept.length > this.k) this.kept.pop();
  }

  list(): Worst[] {
    return this.kept.map((w) => w.entry);
  }
}

export interface LogMonitorOptions {
  bucket?: 'day' | 'week';
  worst?: number;
  rules?: AppRules;
  /** Evaluations kept by (question, enriched question, SQL): a log repeats its queries; bounded (default 4,096). */
  cacheSize?: number;
  /** Line errors kept (the rest are counted); default 10. */
  keepErrors?: number;
}

/**
 * The monitor as a fold over the log, one line at a time: memory holds per agent version and period a Φ tally,
 * the K worst queries and a bounded evaluation cache, never the log. `report()` equals `monitor(scoreLog(parseLog(log)))`.
 */
export class LogMonitor {
  readonly errors: LogError[] = [];
  errorCount = 0;
  private queries = 0;
  private readonly bucket: 'day' | 'week';
  private readonly agents = new Map<string, { all: Tally; periods: Map<string, Tally>; worst: WorstK }>();
  private readonly cache = new Map<string, { report: StefReport | null; reason: string | null }>();
  /** Periods by day string: Date parsing and formatting is most of the per-line cost after the cache. */
  private readonly periodOf = new Map<string, string>();

  constructor(private readonly options: LogMonitorOptions = {}) {
    this.bucket = options.bucket ?? 'day';
  }

  /** One line of the JSONL text (1-based line number). */
  addLine(raw: string, line: number): void {
    const parsed = parseLogLine(raw, line);
    if (!parsed) return;
    if ('error' in parsed) {
      this.errorCount++;
      if (this.errors.length < (this.options.keepErrors ?? 10)) this.errors.push(parsed.error);
      return;
    }
    this.addRecord(parsed.record);
  }

  addRecord(record: LogRecord): void {
    const key = JSON.stringify([record.question, record.enriched_question ?? null, record.sql]);
    let scored = this.cache.get(key);
    if (scored) {
      // Least recently used first out: a hit moves to the end.
      this.cache.delete(key);
    } else {
      scored = scoreRecord(record, this.options.rules ?? {});
      if (this.cache.size >= (this.options.cacheSize ?? 4096)) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(key, scored);
    this.addScored({ record, ...scored });
  }

  addScored(s: { record: LogRecord; report: StefReport | null; reason: string | null }): void {
    this.queries++;
    let agent = this.agents.get(s.record.agent_version);
    if (!agent) {
      agent = { all: new Tally(), periods: new Map(), worst: new WorstK(this.options.worst ?? 5) };
      this.agents.set(s.record.agent_version, agent);
    }
    const period = this.period(s.record.timestamp);
    let tally = agent.periods.get(period);
    if (!tally) agent.periods.set(period, (tally = new Tally()));
    const value = s.report?.phi ?? null;
    agent.all.add(value);
    tally.add(value);
    agent.worst.add(s);
  }

  private period(timestamp: string): string {
    let p = this.periodOf.get(timestamp);
    if (p === undefined) {
      p = this.bucket === 'week' ? weekOf(timestamp) : new Date(Date.parse(timestamp)).toISOString().slice(0, 10);
      if (this.periodOf.size >= 4096) this.periodOf.clear();
      this.periodOf.set(timestamp, p);
    }
    return p;
  }

  report(): MonitorReport {
    const agents: AgentStats[] = [...this.agents.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([agent_version, a]) => ({
        agent_version,
        ...a.all.stats(),
        periods: [...a.periods.entries()]
          .sort(([x], [y]) => x.localeCompare(y))
          .map(([period, t]) => ({ period, ...t.stats() })),
        worst: a.worst.list(),
      }));
    return { bucket: this.bucket, queries: this.queries, agents };
  }
}

/** Aggregate scored records per agent version and period. */
export function monitor(scored: ScoredRecord[], opts: { bucket?: 'day' | 'week'; worst?: number } = {}): MonitorReport {
  const m = new LogMonitor(opts);
  for (const s of scored) m.addScored(s);
  return m.report();
}
