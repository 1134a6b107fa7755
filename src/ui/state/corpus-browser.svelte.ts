/**
 * The corpus browser's state: which corpus is shown (a built-in one or the
 * one chosen on the home page), its cases and counts (described by the app
 * worker), each fixture's content digest recomputed in the browser against
 * its stamp in the fixtures manifest, the self-check, and the schema
 * descriptions. The view only renders this and calls its methods.
 */
import { untrack } from 'svelte';
import type { CorpusDescription, DescribedCase } from '../../core/corpus/describe.ts';
import type { SchemaDescription } from '../../core/corpus/schema-description.ts';
import type { EngineName, FixtureSource } from '../../core/engine.ts';
import { messageOf, type Outcome, type VerdictError } from '../../core/errors.ts';
import type { SelfCheckFinding } from '../../core/corpus/selfcheck.ts';
import type { InputFile } from '../../worker/app.worker.ts';
import type { AppClient } from './app-client.ts';
import { BUILT_IN_CORPORA, BUILT_IN_FIXTURES, DEMO_CORPUS, fetchAsset } from './builtins.ts';
import type { Workspace } from './workspace.svelte.ts';

export type CorpusBackend = Pick<AppClient, 'describeCorpus' | 'fixtureDigest' | 'selfCheckCorpus' | 'parseSchema'>;

/** The choice value meaning "the corpus chosen on the home page". */
export const CHOSEN = 'chosen';
const builtInChoice = (file: string) => `builtin:${file}`;

export interface CorpusChoice {
  value: string;
  label: string;
  note: string;
}

export interface FixtureCheck {
  name: string;
  /** What grading would load under this name. */
  origin: 'built in' | 'your file' | 'unavailable';
  title: string | null;
  /** The manifest's stamps (built-in fixtures only). */
  asOf: string | null;
  stamped: string | null;
  recomputed: string | null;
  status: 'computing' | 'match' | 'mismatch' | 'no stamp' | 'error';
  error: string | null;
  schema: SchemaDescription | null;
  schemaError: string | null;
}

export interface SelfCheckState {
  running: boolean;
  checked: number | null;
  findings: SelfCheckFinding[];
  error: VerdictError | null;
}

export type Filter = 'all' | string;

export class CorpusBrowser {
  choice = $state(builtInChoice(DEMO_CORPUS));
  loading = $state<string | null>(null);
  description = $state.raw<CorpusDescription | null>(null);
  error = $state.raw<VerdictError | null>(null);
  fixtures = $state.raw<FixtureCheck[]>([]);
  selfCheck = $state.raw<SelfCheckState | null>(null);

  search = $state('');
  shape = $state<Filter>('all');
  difficulty = $state<Filter>('all');
  stratum = $state<Filter>('all');
  fixture = $state<Filter>('all');

  /** What was last loaded, so `sync` reloads only on a change. */
  #input: InputFile | null = null;
  #fixtureSources: Record<string, FixtureSource> | null = null;
  #choiceLoaded: string | null = null;
  /** Schema descriptions are fixed per build: each is parsed (in the worker) once. */
  #schemas: Record<string, Promise<Outcome<SchemaDescription>>> = {};
  /** Bumped per load: answers for an older choice are dropped. */
  #generation = 0;

  constructor(
    private readonly backend: CorpusBackend,
    private readonly workspace: Pick<Workspace, 'corpus' | 'fixtures'>,
  ) {}

  get choices(): CorpusChoice[] {
    const out = BUILT_IN_CORPORA.map((a) => ({ value: builtInChoice(a.file), label: a.file, note: a.note }));
    const chosen = this.workspace.corpus;
    if (chosen && !chosen.builtIn)
      out.push({ value: CHOSEN, label: chosen.input.file, note: 'chosen on the home page' });
    return out;
  }

  /** Show the corpus chosen on the home page (a built-in one by its own entry). */
  browseChosen(): void {
    const chosen = this.workspace.corpus;
    if (chosen) this.choice = chosen.builtIn ? builtInChoice(chosen.input.file) : CHOSEN;
  }

  /**
   * Load what the choice names when it, the chosen corpus or the user's
   * fixtures changed. The view calls this from an effect; it reads only the
   * choice and the workspace, so its own writes never retrigger it.
   */
  sync(): void {
    const choice = this.choice;
    const chosen = this.workspace.corpus;
    const fixtures = this.workspace.fixtures;
    // The home page's choice went away or became a built-in one: show that built-in (or the demo).
    if (choice === CHOSEN && (!chosen || chosen.builtIn)) {
      this.choice = builtInChoice(chosen?.input.file ?? DEMO_CORPUS);
      return;
    }
    const input = choice === CHOSEN ? chosen!.input : null;
    const corpusChanged = choice !== this.#choiceLoaded || (choice === CHOSEN && input !== this.#input);
    untrack(() => {
      if (corpusChanged) void this.load(choice, input, fixtures);
      else if (fixtures !== this.#fixtureSources && this.description) {
        this.#fixtureSources = fixtures;
        void this.checkDigests(this.description, fixtures, this.#generation);
      }
    });
  }

  private async load(
    choice: string,
    chosenInput: InputFile | null,
    fixtures: Record<string, FixtureSource>,
  ): Promise<void> {
    const generation = ++this.#generation;
    this.#choiceLoaded = choice;
    this.#fixtureSources = fixtures;
    this.description = null;
    this.error = null;
    this.fixtures = [];
    this.selfCheck = null;
    this.clearFilters();
    let input = chosenInput;
    try {
      if (!input) {
        const asset = BUILT_IN_CORPORA.find((a) => builtInChoice(a.file) === choice);
        if (!asset) throw new Error(`No built-in corpus ${choice}.`);
        this.loading = `Reading ${asset.file}…`;
        input = { file: asset.file, bytes: await fetchAsset(asset) };
      }
      if (generation !== this.#generation) return;
      this.#input = input;
      this.loading = `Loading ${input.file}…`;
      const described = await this.backend.describeCorpus(input);
      if (generation !== this.#generation) return;
      if (!described.ok) {
        this.error = described.error;
        return;
      }
      this.description = described.value;
    } catch (thrown) {
      if (generation === this.#generation) this.error = { code: 'input.invalid', message: messageOf(thrown) };
      return;
    } finally {
      if (generation === this.#generation) this.loading = null;
    }
    await this.checkDigests(this.description, fixtures, generation);
  }

  /** Recompute each fixture's content digest in the worker, one after the other (each loads an engine). */
  private async checkDigests(
    description: CorpusDescription,
    sources: Record<string, FixtureSource>,
    generation: number,
  ): Promise<void> {
    const engine = description.engine as EngineName;
    let rows: FixtureCheck[] = [];
    for (const name of description.fixtures) {
      const builtIn = BUILT_IN_FIXTURES.find((f) => f.name === name);
      const schema = builtIn?.schemaYaml ? await this.schema(name, builtIn.schemaYaml) : null;
      rows.push({
        name,
        origin: sources[name] ? 'your file' : builtIn ? 'built in' : 'unavailable',
        title: builtIn?.title ?? null,
        asOf: builtIn?.asOf ?? null,
        stamped: builtIn?.contentDigest ?? null,
        recomputed: null,
        status: 'computing',
        error: null,
        schema: schema?.ok ? schema.value : null,
        schemaError:
          schema && !schema.ok
            ? schema.error.message
            : builtIn
              ? null
              : 'No schema description: the fixture is not built in.',
      });
    }
    if (generation !== this.#generation || sources !== this.#fixtureSources) return;
    this.fixtures = rows;
    for (const row of rows) {
      const digest = await this.backend.fixtureDigest(engine, row.name, sources[row.name]);
      if (generation !== this.#generation || sources !== this.#fixtureSources) return;
      const next: FixtureCheck = digest.ok
        ? {
            ...row,
            recomputed: digest.value,
            status: row.stamped === null ? 'no stamp' : digest.value === row.stamped ? 'match' : 'mismatch',
          }
        : { ...row, status: 'error', error: digest.error.message };
      rows = rows.map((r) => (r.name === row.name ? next : r));
      this.fixtures = rows;
    }
  }

  private schema(name: string, yamlText: string): Promise<Outcome<SchemaDescription>> {
    let parsed = this.#schemas[name];
    if (!parsed) {
      parsed = this.backend.parseSchema(yamlText, `${name}.schema.yaml`).catch((thrown: unknown) => ({
        ok: false as const,
        error: { code: 'input.invalid' as const, message: messageOf(thrown) },
      }));
      this.#schemas[name] = parsed;
    }
    return parsed;
  }

  async runSelfCheck(): Promise<void> {
    const input = this.#input;
    if (!input || !this.description || this.selfCheck?.running) return;
    const generation = this.#generation;
    const sources = Object.fromEntries(
      this.description.fixtures.filter((n) => this.workspace.fixtures[n]).map((n) => [n, this.workspace.fixtures[n]!]),
    );
    this.selfCheck = { running: true, checked: null, findings: [], error: null };
    let next: SelfCheckState;
    try {
      const outcome = await this.backend.selfCheckCorpus(input, sources);
      next = outcome.ok
        ? { running: false, checked: outcome.value.references_checked, findings: outcome.value.findings, error: null }
        : { running: false, checked: null, findings: [], error: outcome.error };
    } catch (thrown) {
      next = {
        running: false,
        checked: null,
        findings: [],
        error: { code: 'execution.error', message: messageOf(thrown) },
      };
    }
    if (generation === this.#generation) this.selfCheck = next;
  }

  clearFilters(): void {
    this.search = '';
    this.shape = this.difficulty = this.stratum = this.fixture = 'all';
  }

  /** The cases passing the filters and the search (id, question, tags, reference SQL). */
  shown = $derived.by((): DescribedCase[] => {
    const cases = this.description?.cases ?? [];
    const q = this.search.trim().toLowerCase();
    const is = (filter: Filter, value: string | null) => filter === 'all' || (value ?? 'none') === filter;
    return cases.filter(
      (c) =>
        is(this.shape, c.shape) &&
        is(this.difficulty, c.difficulty) &&
        is(this.stratum, c.stratum) &&
        is(this.fixture, c.fixture) &&
        (!q || [c.id, c.question, c.referenceSql ?? '', ...c.tags].some((t) => t.toLowerCase().includes(q))),
    );
  });

  /** Strata of the used arms, for the stratum filter. */
  get strata(): string[] {
    return Object.values(this.description?.counts.stratum ?? {}).flatMap((s) => Object.keys(s));
  }
}
