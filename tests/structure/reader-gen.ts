/**
 * Random SELECT texts for the fast reader's differential test: a small grammar
 * of the subset the reader models (and some it declines), with random names,
 * quoting, keyword case and whitespace. The texts need not be valid SQL: the
 * test asks only that the reader and the grammars agree wherever the reader
 * answers.
 */
import fc from 'fast-check';

const NAMES = [
  'a',
  'b',
  'T1',
  't2',
  'name',
  'Age',
  'singer_id',
  'x_1',
  'date',
  'type',
  'year',
  'count',
  'value',
  'first',
];
const FUNCS = ['lower', 'UPPER', 'abs', 'round', 'length', 'substr', 'coalesce', 'strftime', 'ifnull', 'instr', 'trim'];
const AGGS = ['count', 'COUNT', 'sum', 'Avg', 'min', 'MAX', 'total', 'group_concat'];
const TYPES = ['INT', 'integer', 'REAL', 'float', 'TEXT', 'VARCHAR(10)', 'DECIMAL(10,2)', 'numeric', 'double', 'date'];

/** A keyword in a random case. */
const kw = (word: string): fc.Arbitrary<string> =>
  fc.constantFrom(word.toUpperCase(), word.toLowerCase(), word[0]!.toUpperCase() + word.slice(1).toLowerCase());

const seq = (...parts: fc.Arbitrary<string>[]): fc.Arbitrary<string> => fc.tuple(...parts).map((p) => p.join(' '));
const lit = (s: string) => fc.constant(s);
const opt = (a: fc.Arbitrary<string>) => fc.option(a, { freq: 2 }).map((v) => v ?? '');

const bare = fc.oneof(fc.constantFrom(...NAMES), fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/));
const name = fc.oneof(
  { weight: 12, arbitrary: bare },
  { weight: 1, arbitrary: bare.map((n) => `"${n}"`) },
  { weight: 1, arbitrary: bare.map((n) => `\`${n}\``) },
);

const column = fc.oneof(
  { weight: 3, arbitrary: name },
  { weight: 2, arbitrary: fc.tuple(name, name).map(([t, c]) => `${t}.${c}`) },
);

const number = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 99999 }).map(String) },
  { weight: 2, arbitrary: fc.constantFrom('0', '1', '2014', '3.50', '0.5', '-3', '-12.25', '- 3') },
  { weight: 1, arbitrary: fc.constantFrom('-0', '.5', '1.', '1e3', '007', '12345678901234567890', '0x1F') },
);

const string = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z %_]{0,6}$/).map((s) => `'${s}'`) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z %]{0,6}$/).map((s) => `"${s}"`) },
  { weight: 1, arbitrary: fc.constantFrom("'it''s'", "'a\\b'", '"q""x"', "''", '""', '"a\tb"') },
);

const atom = fc.oneof(column, number, string, fc.constantFrom('NULL', 'TRUE', 'false'));
const compare = fc.constantFrom('=', '<>', '!=', '==', '<', '>=', '<=', '>');
const arith = fc.constantFrom('+', '-', '*', '/', '%', '||');

/** A select statement, recursive through subqueries. */
export const selectText: fc.Arbitrary<string> = fc
  .letrec<{ expr: string; cond: string; query: string }>((tie) => {
    const expr = tie('expr');
    const cond = tie('cond');
    const query = tie('query');
    const sub = query.map((q) => `(${q})`);
    return {
      expr: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        { weight: 6, arbitrary: atom },
        { weight: 2, arbitrary: seq(expr, arith, expr) },
        { weight: 1, arbitrary: expr.map((e) => `(${e})`) },
        { weight: 1, arbitrary: seq(fc.constantFrom(...FUNCS), lit('('), expr, opt(seq(lit(','), expr)), lit(')')) },
        { weight: 2, arbitrary: aggregate(expr) },
        {
          weight: 1,
          arbitrary: seq(kw('case'), seq(kw('when'), cond, kw('then'), expr), opt(seq(kw('else'), expr)), kw('end')),
        },
        { weight: 1, arbitrary: seq(kw('case'), expr, kw('when'), expr, kw('then'), expr, kw('end')) },
        { weight: 1, arbitrary: seq(kw('cast'), lit('('), expr, kw('as'), fc.constantFrom(...TYPES), lit(')')) },
        { weight: 1, arbitrary: sub },
        { weight: 1, arbitrary: expr.map((e) => `-${e}`) },
      ),
      cond: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        { weight: 5, arbitrary: seq(expr, compare, expr) },
        { weight: 2, arbitrary: seq(cond, fc.oneof(kw('and'), kw('or')), cond) },
        { weight: 1, arbitrary: cond.map((c) => `(${c})`) },
        { weight: 1, arbitrary: seq(kw('not'), cond) },
        { weight: 1, arbitrary: seq(expr, kw('is'), opt(kw('not')), kw('null')) },
        { weight: 1, arbitrary: seq(expr, opt(kw('not')), kw('like'), expr) },
        { weight: 1, arbitrary: seq(expr, opt(kw('not')), kw('between'), expr, kw('and'), expr) },
        {
          weight: 1,
          arbitrary: seq(expr, opt(kw('not')), kw('in'), lit('('), expr, opt(seq(lit(','), expr)), lit(')')),
        },
        { weight: 1, arbitrary: seq(expr, opt(kw('not')), kw('in'), sub) },
        { weight: 1, arbitrary: seq(opt(kw('not')), kw('exists'), sub) },
        { weight: 1, arbitrary: expr },
      ),
      query: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        { weight: 4, arbitrary: core(expr, cond, sub) },
        { weight: 1, arbitrary: seq(core(expr, cond, sub), setOp(), core(expr, cond, sub)) },
      ),
    };
  })
  .query.chain((q) => tail(q));

function aggregate(expr: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: seq(kw('count'), lit('(*)')) },
    { weight: 1, arbitrary: seq(fc.constantFrom(...AGGS), lit('(*)')) },
    { weight: 2, arbitrary: seq(kw('count'), lit('('), kw('distinct'), expr, lit(')')) },
    {
      weight: 4,
      arbitrary: seq(fc.constantFrom(...AGGS), lit('('), fc.oneof(lit(''), lit(''), kw('distinct')), expr, lit(')')),
    },
  );
}

function setOp(): fc.Arbitrary<string> {
  return fc.oneof(kw('union'), seq(kw('union'), kw('all')), kw('intersect'), kw('except'));
}

function core(expr: fc.Arbitrary<string>, cond: fc.Arbitrary<string>, sub: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const item = fc.oneof(
    { weight: 4, arbitrary: expr },
    { weight: 2, arbitrary: seq(expr, kw('as'), fc.oneof(name, string)) },
    { weight: 1, arbitrary: seq(expr, name) },
    { weight: 1, arbitrary: lit('*') },
    { weight: 1, arbitrary: name.map((t) => `${t}.*`) },
  );
  const items = fc.array(item, { minLength: 1, maxLength: 3 }).map((xs) => xs.join(', '));
  return seq(
    kw('select'),
    opt(kw('distinct')),
    items,
    opt(seq(kw('from'), from(cond, sub))),
    opt(seq(kw('where'), cond)),
    groupBy(expr, cond),
  );
}

function from(cond: fc.Arbitrary<string>, sub: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const source = fc.oneof({ weight: 4, arbitrary: name }, { weight: 1, arbitrary: sub });
  const aliased = seq(source, fc.oneof(lit(''), lit(''), name, seq(kw('as'), name)));
  const join = fc.oneof(
    lit(','),
    kw('join'),
    seq(kw('inner'), kw('join')),
    seq(kw('left'), kw('join')),
    seq(kw('left'), kw('outer'), kw('join')),
    seq(kw('cross'), kw('join')),
  );
  const constraint = fc.oneof(lit(''), seq(kw('on'), cond), seq(kw('using'), lit('('), name, lit(')')));
  const more = fc.array(seq(join, aliased, constraint), { maxLength: 2 }).map((xs) => xs.join(' '));
  return seq(aliased, more);
}

function groupBy(expr: fc.Arbitrary<string>, cond: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return opt(seq(kw('group'), kw('by'), expr, opt(seq(lit(','), expr)), opt(seq(kw('having'), cond))));
}

/** ORDER BY / LIMIT after the whole chain, and an optional semicolon. */
function tail(query: string): fc.Arbitrary<string> {
  const order = seq(kw('order'), kw('by'), column, fc.constantFrom('', 'ASC', 'desc', 'DESC'));
  const limit = fc.oneof(
    fc.nat({ max: 20 }).map((n) => `LIMIT ${n}`),
    fc.tuple(fc.nat({ max: 20 }), fc.nat({ max: 20 })).map(([a, b]) => `limit ${a} offset ${b}`),
    fc.tuple(fc.nat({ max: 20 }), fc.nat({ max: 20 })).map(([a, b]) => `LIMIT ${a}, ${b}`),
  );
  return seq(lit(query), opt(order), opt(limit), fc.constantFrom('', ';', ' ;')).chain(spacing);
}

/** Vary the whitespace: single spaces become runs, newlines or tabs; some spaces around punctuation go. */
function spacing(text: string): fc.Arbitrary<string> {
  const gaps = text.split(' ').length - 1;
  return fc
    .array(fc.constantFrom(' ', ' ', ' ', ' ', '  ', '\n', '\t', ''), { minLength: gaps, maxLength: gaps })
    .map((ws) => {
      const parts = text.split(' ');
      let out = parts[0]!;
      for (let i = 1; i < parts.length; i++) {
        const glue = ws[i - 1]!;
        // Gluing two words makes one; only drop a space next to punctuation or an operator.
        const wordy = /\w$/.test(out) && /^\w/.test(parts[i]!);
        out += wordy && glue === '' ? ' ' : glue;
        out += parts[i];
      }
      return out.trim();
    });
}
