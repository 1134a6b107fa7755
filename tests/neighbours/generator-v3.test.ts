/**
 * Generator v3 (docs/neighbours.md): targeted rows that v2's random changes rarely make, on both engines, each as a
 * wrong candidate that v2's neighbours let pass (its fixture is built so the shape of the Spider-Pair false pass it
 * stands for comes out) and a correct rewrite that still passes every neighbour:
 * - witness rows: two literals reached through joins meet in one row (flight_2 row0277: a flight of the airline
 *   named 'United' *to* an airport in Aberdeen);
 * - just-miss rows: a row that other tables reference stops matching an equality literal (pets_1 row0368: a pet
 *   owner who is not 'F');
 * - boundary rows: a numeric bound itself, in a row whose other numeric columns are its own (car_1 row0401:
 *   `>= 3000 AND <= 4000` against `> 3000 AND < 4000`);
 * and the LIMIT-tie probe of a positional ORDER BY key, which SQLite read as a constant (every row tied).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineName } from '../../src/core/engine.ts';
import { evaluationRequest } from '../../src/core/evaluation/request.ts';
import { GENERATOR_VERSION } from '../../src/core/neighbours/generate.ts';
import { createNeighbourHost, type NeighbourHost } from '../../src/core/neighbours/host.ts';
import { evaluate } from '../../src/core/pipeline.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

const years = [1970, 1971, 1972, 1973, 1974];
const TRAVEL = `
CREATE TABLE airlines (uid INTEGER NOT NULL, name VARCHAR NOT NULL, PRIMARY KEY (uid));
CREATE TABLE airports (code VARCHAR NOT NULL, city VARCHAR NOT NULL, PRIMARY KEY (code));
CREATE TABLE flights (airline INTEGER NOT NULL, flight_no INTEGER NOT NULL, src VARCHAR NOT NULL, dst VARCHAR NOT NULL,
  PRIMARY KEY (airline, flight_no), FOREIGN KEY (airline) REFERENCES airlines (uid),
  FOREIGN KEY (src) REFERENCES airports (code), FOREIGN KEY (dst) REFERENCES airports (code));
INSERT INTO airlines VALUES (1, 'United'), (2, 'Delta'), (3, 'Jet'), (4, 'Air North'), (5, 'Air South'), (6, 'Skyway');
INSERT INTO airports VALUES ('ABZ', 'Aberdeen'), ('ASH', 'Ashley'), ('BOS', 'Boston'), ('BXX', 'Boston'), ('LAX', 'Los Angeles'),
  ('SEA', 'Seattle'), ('DEN', 'Denver'), ('ORD', 'Chicago'), ('ATL', 'Atlanta'), ('MIA', 'Miami');
INSERT INTO flights VALUES ${[
  [1, 1, 'BOS', 'LAX'],
  [1, 2, 'LAX', 'SEA'],
  [1, 3, 'SEA', 'DEN'],
  [1, 4, 'DEN', 'ORD'],
  [1, 5, 'ORD', 'ATL'],
  [2, 1, 'BOS', 'ABZ'],
  [2, 2, 'ABZ', 'BOS'],
  [2, 3, 'ATL', 'MIA'],
  [3, 1, 'ASH', 'ABZ'],
  [3, 2, 'MIA', 'ATL'],
  [4, 1, 'DEN', 'ABZ'],
  [4, 2, 'SEA', 'ORD'],
  [5, 1, 'LAX', 'BOS'],
  [5, 2, 'ORD', 'DEN'],
  [6, 1, 'ATL', 'BXX'],
  [6, 2, 'BXX', 'SEA'],
  [2, 4, 'MIA', 'LAX'],
  [3, 3, 'ORD', 'ASH'],
  [4, 3, 'ATL', 'SEA'],
  [5, 3, 'BOS', 'MIA'],
]
  .map(([a, n, s, d]) => `(${a}, ${n}, '${s}', '${d}')`)
  .join(', ')};
CREATE TABLE students (id INTEGER NOT NULL, name VARCHAR NOT NULL, sex VARCHAR NOT NULL, PRIMARY KEY (id));
CREATE TABLE pets (id INTEGER NOT NULL, kind VARCHAR NOT NULL, PRIMARY KEY (id));
CREATE TABLE has_pet (student_id INTEGER NOT NULL, pet_id INTEGER NOT NULL, PRIMARY KEY (student_id, pet_id),
  FOREIGN KEY (student_id) REFERENCES students (id), FOREIGN KEY (pet_id) REFERENCES pets (id));
INSERT INTO students VALUES ${Array.from({ length: 40 }, (_v, i) => `(${1001 + i}, 'Student ${i + 1}', '${i % 4 === 3 ? 'M' : 'F'}')`).join(', ')};
INSERT INTO pets VALUES (2001, 'cat'), (2002, 'dog'), (2003, 'dog');
INSERT INTO has_pet VALUES (1001, 2001), (1002, 2002), (1002, 2003);
CREATE TABLE cars (id INTEGER NOT NULL, weight INTEGER NOT NULL, year INTEGER NOT NULL, PRIMARY KEY (id));
INSERT INTO cars VALUES ${years
  .flatMap((y, i) =>
    [3100 + i * 10, 3500 + i * 10, 3900 + i * 10, 2500 + i * 10, 4500 + i * 10].map(
      (w, j) => `(${i * 5 + j + 1}, ${w}, ${y})`,
    ),
  )
  .join(', ')};
`;

const ENGINES: EngineName[] = ['duckdb', 'sqlite'];
let host: NeighbourHost;
beforeAll(() => {
  host = createNeighbourHost({ open: (name) => openEngine(name) });
});
afterAll(async () => {
  await host.close();
});

describe.each(ENGINES)('neighbour generator v3 on %s', (name) => {
  let engine: SupervisedEngine;
  beforeAll(async () => {
    engine = openEngine(name);
    const loaded = await engine.load(sqlFixture('travel', TRAVEL));
    if (!loaded.ok) throw new Error(loaded.error.message);
  }, 120_000);
  afterAll(async () => {
    await engine.close();
  });

  const grade = (expected: string, actual: string, neighbours = 8) =>
    evaluate(
      evaluationRequest({
        expected_sql: expected,
        actual_sql: actual,
        context: { fixture: 'travel' },
        config: { neighbours, enable_counterfactuals: false, neighbour_budget_ms: 120_000 },
      }),
      engine,
      { neighbourHost: host },
    );
  const caught = async (expected: string, wrong: string) => {
    const report = await grade(expected, wrong);
    expect(report.evidence.neighbours!.generator_version).toBe(GENERATOR_VERSION);
    expect(report.evidence.result!.reasons[0]!.code).toBe('coincidental_match');
    expect(report.deterministic_verdict).toBe('fail');
  };
  const passesEveryNeighbour = async (expected: string, actual: string) => {
    const report = await grade(expected, actual, 12);
    expect(report.evidence.neighbours!.counterexample).toBeNull();
    expect(report.evidence.neighbours!.checked).toBeGreaterThanOrEqual(8);
    expect(report.deterministic_verdict).toBe('pass');
  };

  const UNITED_TO_ABERDEEN =
    "SELECT count(*) AS n FROM flights f JOIN airports a ON f.dst = a.code JOIN airlines l ON f.airline = l.uid WHERE a.city = 'Aberdeen' AND l.name = 'United'";

  it('witness rows: two literals reached through joins meet in one row (flight_2 row0277)', async () => {
    await caught(UNITED_TO_ABERDEEN, "SELECT count(*) AS n FROM flights WHERE airline = 1 AND dst = 'Aberdeen'");
  }, 120_000);

  it('… and the same question asked through subqueries passes every neighbour', async () => {
    await passesEveryNeighbour(
      UNITED_TO_ABERDEEN,
      "SELECT count(*) AS n FROM flights WHERE dst IN (SELECT code FROM airports WHERE city = 'Aberdeen') AND airline IN (SELECT uid FROM airlines WHERE name = 'United')",
    );
  }, 120_000);

  const KINDS = 'SELECT count(DISTINCT kind) AS kinds FROM pets';

  it("just-miss rows: a referenced row stops matching the candidate's literal (pets_1 row0368)", async () => {
    await caught(
      KINDS,
      "SELECT count(DISTINCT p.kind) AS kinds FROM pets p JOIN has_pet h ON p.id = h.pet_id JOIN students s ON h.student_id = s.id WHERE s.sex = 'F'",
    );
  }, 120_000);

  it('… while a rewrite of the reference passes every neighbour', async () => {
    await passesEveryNeighbour(KINDS, 'SELECT count(*) AS kinds FROM (SELECT DISTINCT kind FROM pets) AS k');
  }, 120_000);

  const YEARS_IN_RANGE = 'SELECT year FROM cars WHERE weight >= 3000 AND weight <= 4000 GROUP BY year';

  it('boundary rows: the bound itself, in a row whose year is its own (car_1 row0401)', async () => {
    await caught(YEARS_IN_RANGE, 'SELECT DISTINCT year FROM cars WHERE weight < 4000 AND weight > 3000');
  }, 120_000);

  it('… while BETWEEN, the same bounds, passes every neighbour', async () => {
    await passesEveryNeighbour(YEARS_IN_RANGE, 'SELECT DISTINCT year FROM cars WHERE weight BETWEEN 3000 AND 4000');
  }, 120_000);

  it('a positional ORDER BY key with no tie at the LIMIT is not flagged as cutting a tie', async () => {
    const report = await grade(
      'SELECT city, count(*) AS n FROM airports GROUP BY city ORDER BY 2 DESC LIMIT 1',
      'SELECT city, count(code) AS n FROM airports GROUP BY city ORDER BY n DESC LIMIT 1',
      0,
    );
    expect(report.warnings.map((w) => w.code)).not.toContain('limit_through_tie');
    expect(report.deterministic_verdict).toBe('pass');
  }, 120_000);
});
