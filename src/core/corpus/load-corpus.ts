/**
 * Load and validate a corpus file (YAML or JSON, SPEC 1.2). Every problem is
 * reported with its file, line, case id and field; the corpus is returned only
 * when there is no error, so a bad case can never silently drop out of a run.
 */
import { isMap, isSeq, type Node, type YAMLMap } from 'yaml';
import { ENGINE_NAMES, type EngineName } from '../engine.ts';
import { sha256Hex } from '../digest/sha256.ts';
import { resolveEvaluationConfig } from '../evaluation/request.ts';
import { CodecError, decodeResultTable } from '../value/json-codec.ts';
import type { ResultTable } from '../value/kind.ts';
import { hasErrors, type LoadProblem, type ProblemCode } from './problems.ts';
import { closest, jsonSyntaxError, keysOf, looksLikeJson, nodeAtPath, pairOf, Source } from './source.ts';
import {
  ARMS,
  DIFFICULTIES,
  isStratumOf,
  SHAPES,
  STRATA,
  strataCounts,
  type Arm,
  type Corpus,
  type CorpusCase,
  type DeclaredCounts,
  type Difficulty,
  type LoadedCorpus,
  type Shape,
  type Stratum,
} from './types.ts';
import { decodeUtf8Strict } from './utf8.ts';

/** Corpora are small; 8 MiB leaves room for large frozen results. */
export const DEFAULT_CORPUS_MAX_BYTES = 8 * 1024 * 1024;

export interface LoadCorpusOptions {
  /** Name shown in problems (the path as the user gave it). */
  file: string;
  /** Fixture names cases may use; when absent, fixture names are not checked. */
  knownFixtures?: readonly string[];
  maxBytes?: number;
}

export type CorpusLoadResult =
  | { ok: true; loaded: LoadedCorpus; problems: LoadProblem[] }
  | { ok: false; problems: LoadProblem[]; sha256: string; sizeBytes: number };

const TOP_FIELDS = ['corpus', 'version', 'engine', 'description', 'case_count', 'strata', 'cases'] as const;
const CASE_FIELDS = [
  'id',
  'fixture',
  'question',
  'evidence',
  'reference_sql',
  'shape',
  'order_matters',
  'difficulty',
  'tags',
  'config',
  'expected',
  'arm',
  'stratum',
  'rationale',
] as const;
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

export async function loadCorpus(bytes: Uint8Array, options: LoadCorpusOptions): Promise<CorpusLoadResult> {
  const file = options.file;
  const sha256 = await sha256Hex(bytes);
  const sizeBytes = bytes.length;
  const problems: LoadProblem[] = [];
  const failed = (): CorpusLoadResult => ({ ok: false, problems, sha256, sizeBytes });

  const maxBytes = options.maxBytes ?? DEFAULT_CORPUS_MAX_BYTES;
  if (sizeBytes > maxBytes) {
    problems.push({
      severity: 'error',
      code: 'file_too_large',
      file,
      message: `The file has ${sizeBytes} bytes; the limit is ${maxBytes}.`,
    });
    return failed();
  }
  const decoded = decodeUtf8Strict(bytes);
  if (!decoded.ok) {
    problems.push({
      severity: 'error',
      code: 'not_utf8',
      file,
      line: decoded.line,
      column: decoded.column,
      message: `Not UTF-8 at byte ${decoded.offset}: ${decoded.reason}.`,
    });
    return failed();
  }
  // A JSON corpus is told about in JSON's terms (YAML would parse most of it and word its errors as YAML).
  const json = looksLikeJson(file, decoded.text);
  const jsonError = json ? jsonSyntaxError(decoded.text) : null;
  if (jsonError) {
    problems.push({
      severity: 'error',
      code: 'syntax_error',
      file,
      line: jsonError.line,
      column: jsonError.column,
      message: `Not valid JSON: ${jsonError.message}.`,
    });
    return failed();
  }
  const source = new Source(decoded.text, { json });
  const syntax = source.errors();
  if (syntax.length > 0) {
    for (const e of syntax)
      problems.push({
        severity: 'error',
        code: 'syntax_error',
        file,
        line: e.line,
        column: e.column,
        message: e.message,
      });
    return failed();
  }
  const root = source.doc.contents;
  if (!isMap(root)) {
    problems.push({
      severity: 'error',
      code: 'not_a_mapping',
      file,
      ...source.position(root),
      message: 'The document must be a mapping with corpus, version, engine and cases.',
    });
    return failed();
  }

  const v = new Validator(source, file, problems);
  for (const { key, node } of keysOf(root))
    if (!(TOP_FIELDS as readonly string[]).includes(key)) v.unknownField(node, key, TOP_FIELDS);

  const name = v.string(root, 'corpus', { required: true });
  const version = v.integer(root, 'version', { required: true, min: 1 });
  const engine = v.oneOf(root, 'engine', ENGINE_NAMES, 'invalid_field', { required: true }) as EngineName | undefined;
  const description = v.string(root, 'description', {});
  const declared = v.declaredCounts(root);

  const casesPair = pairOf(root, 'cases');
  const casesNode = source.resolve(casesPair?.value);
  const cases: CorpusCase[] = [];
  let caseCount = 0;
  if (!casesNode) {
    v.push('missing_field', root, 'The corpus has no cases list.', { field: 'cases' });
  } else if (!isSeq(casesNode)) {
    v.push('invalid_field', casesNode, 'cases must be a list.', { field: 'cases' });
  } else {
    caseCount = casesNode.items.length;
    if (caseCount === 0) v.push('empty_corpus', casesNode, 'The cases list is empty.', { field: 'cases' });
    const seen = new Map<string, number | undefined>();
    casesNode.items.forEach((alias, index) => {
      const item = source.resolve(alias as Node);
      const parsed = v.corpusCase(item, index, options.knownFixtures);
      if (!parsed) return;
      const first = seen.get(parsed.id);
      if (seen.has(parsed.id)) {
        // A case repeated by alias is named where the alias is, not at the case it repeats.
        const idNode = alias !== item ? (alias as Node) : isMap(item) ? pairOf(item, 'id')?.value : undefined;
        v.push(
          'duplicate_id',
          idNode ?? (item as Node),
          `The id '${parsed.id}' is already used by the case at line ${first ?? '?'}.`,
          { case_id: parsed.id, case_index: index, field: 'id' },
        );
      } else seen.set(parsed.id, parsed.line);
      cases.push(parsed);
    });
  }

  if (declared.cases !== undefined && isSeq(casesNode) && declared.cases !== caseCount)
    v.push(
      'count_mismatch',
      pairOf(root, 'case_count')?.value,
      `case_count declares ${declared.cases} cases; the file has ${caseCount}.`,
      { field: 'case_count' },
    );
  if (declared.strata) v.checkStrata(root, declared.strata, cases);

  if (hasErrors(problems) || name === undefined || version === undefined || engine === undefined) return failed();
  const corpus: Corpus = { name, version, engine, declared, cases };
  if (description !== undefined) corpus.description = description;
  return { ok: true, loaded: { file, sha256, sizeBytes, corpus }, problems };
}

interface FieldOptions {
  required?: boolean;
  case_id?: string;
  case_index?: number;
}

class Validator {
  constructor(
    private readonly source: Source,
    private readonly file: string,
    private readonly problems: LoadProblem[],
  ) {}

  push(
    code: ProblemCode,
    node: Node | null | undefined,
    message: string,
    extra: Partial<LoadProblem> = {},
    severity: 'error' | 'warning' = 'error',
  ): void {
    this.problems.push({ severity, code, file: this.file, ...this.source.position(node), ...extra, message });
  }

  unknownField(node: Node, key: string, known: readonly string[], extra: Partial<LoadProblem> = {}): void {
    const hint = closest(key, known);
    this.push(
      'unknown_field',
      node,
      `Unknown field '${key}'${hint ? ` (did you mean '${hint}'?)` : ''}; it is ignored.`,
      { ...extra, field: key },
      'warning',
    );
  }

  private value(map: YAMLMap, key: string, opts: FieldOptions): { node: Node; value: unknown } | undefined {
    const pair = pairOf(map, key);
    const value = pair?.value ? this.source.toJS(pair.value) : undefined;
    if (!pair || value === undefined || value === null) {
      if (opts.required)
        this.push('missing_field', pair?.value ?? pair?.key ?? map, `Required field '${key}' is missing.`, {
          field: key,
          case_id: opts.case_id,
          case_index: opts.case_index,
        });
      return undefined;
    }
    return { node: pair.value!, value };
  }

  string(map: YAMLMap, key: string, opts: FieldOptions & { nonEmpty?: boolean }): string | undefined {
    const got = this.value(map, key, opts);
    if (!got) return undefined;
    if (typeof got.value !== 'string') {
      this.push('invalid_field', got.node, `'${key}' must be a string.`, {
        field: key,
        case_id: opts.case_id,
        case_index: opts.case_index,
      });
      return undefined;
    }
    if ((opts.nonEmpty ?? opts.required) && got.value.trim() === '') {
      this.push(opts.required ? 'missing_field' : 'invalid_field', got.node, `'${key}' is empty.`, {
        field: key,
        case_id: opts.case_id,
        case_index: opts.case_index,
      });
      return undefined;
    }
    return got.value;
  }

  integer(map: YAMLMap, key: string, opts: FieldOptions & { min?: number }): number | undefined {
    const got = this.value(map, key, opts);
    if (!got) return undefined;
    if (typeof got.value !== 'number' || !Number.isSafeInteger(got.value) || got.value < (opts.min ?? 0)) {
      this.push('invalid_field', got.node, `'${key}' must be an integer ≥ ${opts.min ?? 0}.`, {
        field: key,
        case_id: opts.case_id,
        case_index: opts.case_index,
      });
      return undefined;
    }
    return got.value;
  }

  boolean(map: YAMLMap, key: string, opts: FieldOptions): boolean | undefined {
    const got = this.value(map, key, opts);
    if (!got) return undefined;
    if (typeof got.value !== 'boolean') {
      this.push('invalid_field', got.node, `'${key}' must be true or false.`, {
        field: key,
        case_id: opts.case_id,
        case_index: opts.case_index,
      });
      return undefined;
    }
    return got.value;
  }

  oneOf(
    map: YAMLMap,
    key: string,
    allowed: readonly string[],
    code: ProblemCode,
    opts: FieldOptions,
  ): string | undefined {
    const got = this.value(map, key, opts);
    if (!got) return undefined;
    if (typeof got.value !== 'string' || !allowed.includes(got.value)) {
      const hint = typeof got.value === 'string' ? closest(got.value, allowed) : undefined;
      this.push(
        code,
        got.node,
        `'${key}' is ${JSON.stringify(got.value)}; expected one of ${allowed.join(', ')}${hint ? ` (did you mean '${hint}'?)` : ''}.`,
        {
          field: key,
          case_id: opts.case_id,
          case_index: opts.case_index,
        },
      );
      return undefined;
    }
    return got.value;
  }

  declaredCounts(root: YAMLMap): DeclaredCounts {
    const declared: DeclaredCounts = {};
    const cases = this.integer(root, 'case_count', {});
    if (cases !== undefined) declared.cases = cases;
    const pair = pairOf(root, 'strata');
    if (!pair?.value) return declared;
    if (!isMap(pair.value)) {
      this.push('invalid_field', pair.value, 'strata must map each arm to its strata counts.', { field: 'strata' });
      return declared;
    }
    const strata: NonNullable<DeclaredCounts['strata']> = {};
    for (const armPair of pair.value.items) {
      const arm = this.source.toJS(armPair.key as Node);
      if (typeof arm !== 'string' || !(ARMS as readonly string[]).includes(arm)) {
        this.push(
          'unknown_arm',
          armPair.key as Node,
          `strata names the arm ${JSON.stringify(arm)}; expected must_refuse or must_answer.`,
          { field: 'strata' },
        );
        continue;
      }
      if (!isMap(armPair.value)) {
        this.push('invalid_field', armPair.value as Node, `strata.${arm} must map strata to counts.`, {
          field: `strata.${arm}`,
        });
        continue;
      }
      const counts: Partial<Record<Stratum, number>> = {};
      for (const sPair of armPair.value.items) {
        const stratum = this.source.toJS(sPair.key as Node);
        const count = this.source.toJS(sPair.value as Node);
        if (typeof stratum !== 'string' || !isStratumOf(arm as Arm, stratum)) {
          this.push(
            'unknown_stratum',
            sPair.key as Node,
            `strata.${arm} names ${JSON.stringify(stratum)}, which is not a stratum of ${arm} (${STRATA[arm as Arm].join(', ')}).`,
            { field: `strata.${arm}` },
          );
          continue;
        }
        if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
          this.push(
            'invalid_field',
            sPair.value as Node,
            `strata.${arm}.${stratum} must be a count (an integer ≥ 0).`,
            { field: `strata.${arm}.${stratum}` },
          );
          continue;
        }
        counts[stratum] = count;
      }
      strata[arm as Arm] = counts;
    }
    declared.strata = strata;
    return declared;
  }

  checkStrata(root: YAMLMap, declared: NonNullable<DeclaredCounts['strata']>, cases: CorpusCase[]): void {
    const actual = strataCounts(cases);
    const strataNode = pairOf(root, 'strata')!.value as YAMLMap;
    for (const arm of ARMS) {
      const armNode = pairOf(strataNode, arm)?.value;
      for (const stratum of STRATA[arm]) {
        const want = declared[arm]?.[stratum as Stratum];
        const have = actual[arm][stratum] ?? 0;
        if (want === undefined) {
          if (have > 0 && declared[arm] !== undefined)
            this.push(
              'count_mismatch',
              armNode,
              `strata.${arm} declares no count for ${stratum}, but ${have} case(s) are in it.`,
              { field: `strata.${arm}.${stratum}` },
            );
          else if (have > 0)
            this.push(
              'count_mismatch',
              strataNode,
              `strata declares no counts for ${arm}, but ${have} case(s) are in ${arm}/${stratum}.`,
              { field: `strata.${arm}` },
            );
          continue;
        }
        if (want !== have) {
          const node = armNode && isMap(armNode) ? pairOf(armNode, stratum)?.value : armNode;
          this.push(
            'count_mismatch',
            node,
            `strata.${arm}.${stratum} declares ${want} case(s); the file has ${have}.`,
            { field: `strata.${arm}.${stratum}` },
          );
        }
      }
    }
  }

  corpusCase(node: Node, index: number, knownFixtures: readonly string[] | undefined): CorpusCase | undefined {
    if (!isMap(node)) {
      this.push('invalid_field', node, 'A case must be a mapping.', { case_index: index });
      return undefined;
    }
    const idPair = pairOf(node, 'id');
    const rawId = idPair?.value ? this.source.toJS(idPair.value) : undefined;
    let id: string | undefined;
    if (rawId === undefined || rawId === null)
      this.push('missing_field', node, 'The case has no id.', { case_index: index, field: 'id' });
    else if ((typeof rawId !== 'string' && typeof rawId !== 'number') || !ID_PATTERN.test(String(rawId)))
      this.push(
        'invalid_field',
        idPair!.value,
        `The id ${JSON.stringify(rawId)} must be letters, digits and . _ : - (at most 128, starting with a letter or digit).`,
        { case_index: index, field: 'id' },
      );
    else id = String(rawId);
    const at = { case_id: id, case_index: index };
    const line = this.source.position(node)?.line;

    for (const { key, node: keyNode } of keysOf(node))
      if (!(CASE_FIELDS as readonly string[]).includes(key)) this.unknownField(keyNode, key, CASE_FIELDS, at);

    const fixture = this.string(node, 'fixture', { required: true, ...at });
    if (fixture !== undefined && knownFixtures && !knownFixtures.includes(fixture)) {
      const hint = closest(fixture, knownFixtures);
      this.push(
        'unknown_fixture',
        pairOf(node, 'fixture')!.value,
        `Unknown fixture '${fixture}'; known: ${knownFixtures.join(', ')}${hint ? ` (did you mean '${hint}'?)` : ''}.`,
        { ...at, field: 'fixture' },
      );
    }
    const question = this.string(node, 'question', { required: true, ...at });
    const arm = this.oneOf(node, 'arm', ARMS, 'unknown_arm', at) as Arm | undefined;
    const stratumRaw = this.string(node, 'stratum', at);
    let stratum: Stratum | undefined;
    if (stratumRaw !== undefined) {
      if (pairOf(node, 'arm') === undefined)
        this.push('missing_field', node, `The case has a stratum (${stratumRaw}) but no arm.`, { ...at, field: 'arm' });
      else if (arm && !isStratumOf(arm, stratumRaw))
        this.push(
          'unknown_stratum',
          pairOf(node, 'stratum')!.value,
          `'${stratumRaw}' is not a stratum of ${arm}; expected one of ${STRATA[arm].join(', ')}.`,
          { ...at, field: 'stratum' },
        );
      else if (arm) stratum = stratumRaw as Stratum;
    } else if (arm)
      this.push('missing_field', pairOf(node, 'arm')!.value, `A ${arm} case needs a stratum.`, {
        ...at,
        field: 'stratum',
      });

    const refusal = arm === 'must_refuse';
    const refPair = pairOf(node, 'reference_sql');
    const refRaw = refPair?.value ? this.source.toJS(refPair.value) : undefined;
    let referenceSql: string | undefined;
    let alternativeSql: string[] | undefined;
    if (refusal) {
      if (refPair)
        this.push(
          'unexpected_reference',
          refPair.value ?? (refPair.key as Node),
          'A must_refuse case has no answer: a reference SQL would make answering it look correct.',
          { ...at, field: 'reference_sql' },
        );
    } else if (refRaw === undefined || refRaw === null || (typeof refRaw === 'string' && refRaw.trim() === '')) {
      this.push(
        'missing_reference',
        refPair?.value ?? node,
        `The case has no reference_sql${arm ? ` (a ${arm} case needs one)` : ''}.`,
        { ...at, field: 'reference_sql' },
      );
    } else if (Array.isArray(refRaw)) {
      // Several accepted references: the first is the primary (its frozen result is `expected`).
      const bad = refRaw.findIndex((r) => typeof r !== 'string' || r.trim() === '');
      if (refRaw.length === 0)
        this.push('missing_reference', refPair!.value, 'reference_sql is an empty list.', {
          ...at,
          field: 'reference_sql',
        });
      else if (bad >= 0)
        this.push('invalid_field', refPair!.value, `reference_sql[${bad}] must be a non-empty string.`, {
          ...at,
          field: `reference_sql[${bad}]`,
        });
      else {
        referenceSql = refRaw[0] as string;
        alternativeSql = (refRaw as string[]).slice(1);
      }
    } else if (typeof refRaw !== 'string') {
      this.push('invalid_field', refPair!.value, "'reference_sql' must be a string or a list of strings.", {
        ...at,
        field: 'reference_sql',
      });
    } else referenceSql = refRaw;

    const shape = this.oneOf(node, 'shape', SHAPES, 'unknown_shape', { ...at, required: !refusal }) as
      Shape | undefined;
    const orderMatters = this.boolean(node, 'order_matters', at);
    const difficulty = this.oneOf(node, 'difficulty', DIFFICULTIES, 'unknown_difficulty', at) as Difficulty | undefined;
    const tags = this.tags(node, at);
    const rationale = this.string(node, 'rationale', at);
    const evidence = this.string(node, 'evidence', at);
    const config = this.caseConfig(node, at);

    let expected: ResultTable | undefined;
    const expectedPair = pairOf(node, 'expected');
    if (expectedPair?.value) {
      if (refusal)
        this.push('unexpected_reference', expectedPair.value, 'A must_refuse case has no expected result.', {
          ...at,
          field: 'expected',
        });
      try {
        expected = decodeResultTable(this.source.toJS(expectedPair.value), 'expected');
      } catch (error) {
        if (!(error instanceof CodecError)) throw error;
        this.push('bad_expected', nodeAtPath(expectedPair.value, error.path), error.message, {
          ...at,
          field: error.path,
        });
      }
    }
    if (shape === 'scalar' && expected && (expected.columns.length !== 1 || expected.rows.length !== 1))
      this.push(
        'shape_contradiction',
        expectedPair!.value,
        `A scalar case must return exactly one row and one column; expected has ${expected.rows.length} row(s) and ${expected.columns.length} column(s).`,
        { ...at, field: 'expected' },
      );
    if (shape === 'top_n' && orderMatters !== true)
      this.push(
        'shape_contradiction',
        pairOf(node, 'order_matters')?.value ?? node,
        'A top_n case ranks its rows: order_matters must be true.',
        { ...at, field: 'order_matters' },
      );

    if (id === undefined || fixture === undefined || question === undefined) return undefined;
    const out: CorpusCase = { id, fixture, question, orderMatters: orderMatters ?? false, tags };
    if (referenceSql !== undefined) out.referenceSql = referenceSql;
    if (alternativeSql?.length) out.alternativeSql = alternativeSql;
    if (evidence !== undefined) out.evidence = evidence;
    if (config) out.config = config;
    if (shape) out.shape = shape;
    if (difficulty) out.difficulty = difficulty;
    if (expected && !refusal) out.expected = expected;
    if (arm) out.arm = arm;
    if (stratum) out.stratum = stratum;
    if (rationale !== undefined) out.rationale = rationale;
    if (line !== undefined) out.line = line;
    return out;
  }

  /** Per-case comparison settings: the seed's config names, validated as a run's config is. */
  private caseConfig(node: YAMLMap, at: FieldOptions): Record<string, unknown> | undefined {
    const got = this.value(node, 'config', at);
    if (!got) return undefined;
    if (typeof got.value !== 'object' || got.value === null || Array.isArray(got.value)) {
      this.push('invalid_field', got.node, "'config' must map option names to values.", { ...at, field: 'config' });
      return undefined;
    }
    const raw = got.value as Record<string, unknown>;
    const resolved = resolveEvaluationConfig(raw);
    if (!resolved.ok) {
      const field = resolved.error.location?.startsWith('config.')
        ? resolved.error.location
        : `config${resolved.error.location && resolved.error.location !== 'config' ? `.${resolved.error.location}` : ''}`;
      const key = field.split('.')[1];
      const keyNode = key && isMap(got.node) ? pairOf(got.node, key)?.value : undefined;
      this.push('invalid_field', keyNode ?? got.node, `config: ${resolved.error.message}`, { ...at, field });
      return undefined;
    }
    if (raw.enable_ai_judge !== undefined) {
      this.push('invalid_field', got.node, 'config: enable_ai_judge is a run setting, not a case setting.', {
        ...at,
        field: 'config.enable_ai_judge',
      });
      return undefined;
    }
    return { ...raw };
  }

  private tags(node: YAMLMap, at: FieldOptions): string[] {
    const got = this.value(node, 'tags', at);
    if (!got) return [];
    if (!Array.isArray(got.value) || !got.value.every((t) => typeof t === 'string')) {
      this.push('invalid_field', got.node, "'tags' must be a list of strings.", { ...at, field: 'tags' });
      return [];
    }
    return got.value as string[];
  }
}
