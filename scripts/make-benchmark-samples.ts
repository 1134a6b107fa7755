/**
 * The small benchmark samples under fixtures/benchmarks, written in each
 * benchmark's exact file shapes: two SQLite databases (made with sql.js, the
 * engine that grades them), a BIRD dev.json / predict_dev.json pair, a
 * Spider gold / predictions pair and a defog-style questions CSV with its
 * predictions. Deterministic: re-running rewrites the same bytes.
 *
 *   node --import tsx scripts/make-benchmark-samples.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import initSqlJs from 'sql.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../fixtures/benchmarks');

const DATABASES: Record<string, string> = {
  shop: `
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, segment TEXT);
    INSERT INTO customers VALUES (1, 'Ana', 'Lisbon', 'retail'), (2, 'Bo', 'Oslo', 'retail'), (3, 'Chen', 'Lisbon', 'business'),
      (4, 'Dara', NULL, 'business'), (5, 'Eli', 'Oslo', 'retail');
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), amount REAL, status TEXT, year INTEGER);
    INSERT INTO orders VALUES (10, 1, 120.5, 'paid', 2023), (11, 1, 80.0, 'paid', 2024), (12, 2, 15.25, 'refunded', 2024),
      (13, 3, 300.0, 'paid', 2024), (14, 3, 300.0, 'paid', 2024), (15, 5, 42.0, 'open', 2024), (16, 4, 99.99, 'paid', 2023);`,
  school: `
    CREATE TABLE students (id INTEGER PRIMARY KEY, name TEXT NOT NULL, grade_level INTEGER);
    INSERT INTO students VALUES (1, 'Ines', 9), (2, 'Jon', 10), (3, 'Kai', 10), (4, 'Lea', 11);
    CREATE TABLE scores (student_id INTEGER REFERENCES students(id), subject TEXT, score INTEGER);
    INSERT INTO scores VALUES (1, 'math', 90), (1, 'art', 70), (2, 'math', 65), (2, 'art', 88), (3, 'math', 90), (4, 'math', 75), (4, 'art', 95);`,
};

/** BIRD questions: [db, question, evidence, gold SQL, difficulty, prediction]. */
const BIRD: [string, string, string, string, string, string][] = [
  // 0: right (simple)
  [
    'shop',
    'How many customers live in Lisbon?',
    "live in Lisbon refers to city = 'Lisbon'",
    "SELECT COUNT(*) FROM customers WHERE city = 'Lisbon'",
    'simple',
    "SELECT count(id) FROM customers WHERE city = 'Lisbon'",
  ],
  // 1: wrong value (simple)
  [
    'school',
    'What is the highest math score?',
    "math refers to subject = 'math'",
    "SELECT MAX(score) FROM scores WHERE subject = 'math'",
    'simple',
    'SELECT MAX(score) FROM scores',
  ],
  // 2: duplicates differ: BIRD compares sets (pass), SQL Verdict bags (fail) (moderate)
  [
    'shop',
    'Which customers have paid orders in 2024? List their names.',
    "paid refers to status = 'paid'",
    "SELECT DISTINCT c.name FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = 'paid' AND o.year = 2024",
    'moderate',
    "SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = 'paid' AND o.year = 2024",
  ],
  // 3: columns swapped: BIRD fails (tuples differ), SQL Verdict passes (columns align by content) (moderate)
  [
    'school',
    'List each student name with their grade level.',
    '',
    'SELECT name, grade_level FROM students',
    'moderate',
    'SELECT grade_level, name FROM students',
  ],
  // 4: right (challenging)
  [
    'shop',
    'What is the total paid amount per city, for cities with a paid order?',
    "paid refers to status = 'paid'; total amount refers to SUM(amount)",
    "SELECT c.city, SUM(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = 'paid' AND c.city IS NOT NULL GROUP BY c.city",
    'challenging',
    "SELECT city, SUM(amount) AS total FROM orders JOIN customers ON customers.id = orders.customer_id WHERE status = 'paid' AND city IS NOT NULL GROUP BY city ORDER BY total DESC",
  ],
  // 5: the prediction fails to execute (challenging)
  [
    'school',
    'Which students scored above the average math score in math?',
    "above the average refers to score > AVG(score) where subject = 'math'",
    "SELECT s.name FROM students s JOIN scores sc ON sc.student_id = s.id WHERE sc.subject = 'math' AND sc.score > (SELECT AVG(score) FROM scores WHERE subject = 'math')",
    'challenging',
    "SELECT name FROM students JOIN scores ON scores.student_id = students.id WHERE subject = 'math' AND score > AVG(score)",
  ],
];

const SQL = await initSqlJs();
for (const [db, ddl] of Object.entries(DATABASES)) {
  const database = new SQL.Database();
  database.exec(ddl);
  const bytes = database.export();
  database.close();
  for (const layout of ['bird-sample/dev_databases', 'spider-sample/database']) {
    mkdirSync(path.join(root, layout, db), { recursive: true });
    writeFileSync(path.join(root, layout, db, `${db}.sqlite`), bytes);
  }
}

const dev = BIRD.map(([db_id, question, evidence, SQL, difficulty], question_id) => ({
  question_id,
  db_id,
  question,
  evidence,
  SQL,
  difficulty,
}));
writeFileSync(path.join(root, 'bird-sample', 'dev.json'), `${JSON.stringify(dev, null, 4)}\n`);
const predict = Object.fromEntries(
  BIRD.map(([db, , , , , pred], i) => [String(i), `${pred}\t----- bird -----\t${db}`]),
);
writeFileSync(path.join(root, 'bird-sample', 'predict_dev.json'), `${JSON.stringify(predict, null, 4)}\n`);

// Spider: the same questions as a gold file and a predictions file (DISTINCT is removed by the official match).
writeFileSync(
  path.join(root, 'spider-sample', 'dev_gold.sql'),
  BIRD.map(([db, , , gold]) => `${gold}\t${db}`).join('\n') + '\n',
);
writeFileSync(path.join(root, 'spider-sample', 'pred.txt'), BIRD.map(([, , , , , pred]) => pred).join('\n') + '\n');

// defog-style CSV: {a, b} alternatives; case 1 passes on its second alternative.
const csvRows = [
  ['question', 'query', 'db_name', 'query_category', 'instructions'],
  ['How many customers live in Lisbon?', "SELECT COUNT(*) FROM customers WHERE city = 'Lisbon'", 'shop', 'count', ''],
  [
    'Show the customers of segment retail.',
    "SELECT {id, name} FROM customers WHERE segment = 'retail'",
    'shop',
    'list',
    '',
  ],
  [
    'Total paid amount in 2024?',
    "SELECT SUM(amount) FROM orders WHERE status = 'paid' AND year = 2024",
    'shop',
    'aggregate',
    "paid means status = 'paid'",
  ],
  [
    'Which subjects did Ines take?',
    "SELECT subject FROM scores WHERE student_id = 1;SELECT sc.subject FROM scores sc JOIN students s ON s.id = sc.student_id WHERE s.name = 'Ines'",
    'school',
    'list',
    '',
  ],
];
const predRows = [
  ['question', 'generated_query'],
  ['How many customers live in Lisbon?', "SELECT COUNT(*) FROM customers WHERE city = 'Lisbon'"],
  ['Show the customers of segment retail.', "SELECT name FROM customers WHERE segment = 'retail'"],
  ['Total paid amount in 2024?', 'SELECT SUM(amount) FROM orders WHERE year = 2024'],
  [
    'Which subjects did Ines take?',
    "SELECT subject FROM scores JOIN students ON students.id = scores.student_id WHERE students.name = 'Ines'",
  ],
];
const csv = (rows: string[][]) =>
  rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\n') + '\n';
mkdirSync(path.join(root, 'defog-sample'), { recursive: true });
writeFileSync(path.join(root, 'defog-sample', 'questions.csv'), csv(csvRows));
writeFileSync(path.join(root, 'defog-sample', 'predictions.csv'), csv(predRows));
console.log(`wrote ${root}`);
