-- DuckDB-flavoured analytical queries used to choose the node-sql-parser grammar
-- for the DuckDB dialect (see docs/structure.md). One query per statement; the
-- `-- tag:` line names the construct the query exercises.
-- tag: plain aggregate
SELECT SUM(amount) AS revenue FROM orders WHERE status = 'paid';
-- tag: group by + order by + limit
SELECT region, COUNT(*) AS n FROM customers GROUP BY region ORDER BY n DESC LIMIT 5;
-- tag: join + having
SELECT c.name, SUM(o.amount) AS total FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name HAVING SUM(o.amount) > 100;
-- tag: left join + coalesce
SELECT c.id, COALESCE(SUM(o.amount), 0) FROM customers AS c LEFT JOIN orders AS o ON c.id = o.customer_id GROUP BY c.id;
-- tag: cte
WITH paid AS (SELECT * FROM orders WHERE status = 'paid') SELECT COUNT(*) FROM paid;
-- tag: two ctes
WITH a AS (SELECT customer_id, SUM(amount) AS s FROM orders GROUP BY customer_id), b AS (SELECT AVG(s) AS m FROM a) SELECT a.customer_id FROM a, b WHERE a.s > b.m;
-- tag: window rank
SELECT name, amount, RANK() OVER (ORDER BY amount DESC) AS r FROM orders;
-- tag: window partition
SELECT region, month, SUM(amount) OVER (PARTITION BY region ORDER BY month) AS running FROM monthly;
-- tag: window frame
SELECT month, AVG(amount) OVER (ORDER BY month ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM monthly;
-- tag: lag
SELECT month, amount - LAG(amount) OVER (ORDER BY month) AS delta FROM monthly;
-- tag: date_trunc
SELECT date_trunc('month', ordered_at) AS m, SUM(amount) FROM orders GROUP BY 1 ORDER BY 1;
-- tag: extract
SELECT EXTRACT(year FROM ordered_at) AS y, COUNT(*) FROM orders GROUP BY y;
-- tag: strftime
SELECT strftime(ordered_at, '%Y-%m') AS ym, SUM(amount) FROM orders GROUP BY ym;
-- tag: date literal
SELECT COUNT(*) FROM orders WHERE ordered_at >= DATE '2025-01-01' AND ordered_at < DATE '2026-01-01';
-- tag: interval
SELECT COUNT(*) FROM orders WHERE ordered_at >= DATE '2025-12-31' - INTERVAL 30 DAY;
-- tag: interval string
SELECT COUNT(*) FROM orders WHERE ordered_at >= TIMESTAMP '2025-12-31 00:00:00' - INTERVAL '1 month';
-- tag: cast
SELECT CAST(amount AS DECIMAL(10,2)) FROM orders;
-- tag: double-colon cast
SELECT amount::DOUBLE FROM orders;
-- tag: double-colon date cast
SELECT COUNT(*) FROM orders WHERE ordered_at::DATE = '2025-03-01';
-- tag: try_cast
SELECT TRY_CAST(code AS INTEGER) FROM products;
-- tag: case
SELECT CASE WHEN amount > 100 THEN 'big' WHEN amount > 10 THEN 'mid' ELSE 'small' END AS bucket, COUNT(*) FROM orders GROUP BY bucket;
-- tag: filter clause
SELECT COUNT(*) FILTER (WHERE status = 'paid') AS paid, COUNT(*) AS total FROM orders;
-- tag: count distinct
SELECT COUNT(DISTINCT customer_id) FROM orders;
-- tag: ilike
SELECT name FROM products WHERE name ILIKE '%widget%';
-- tag: like + lower
SELECT name FROM products WHERE lower(name) LIKE 'a%';
-- tag: in subquery
SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE amount > 500);
-- tag: not exists
SELECT name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id);
-- tag: scalar subquery
SELECT name, (SELECT MAX(amount) FROM orders o WHERE o.customer_id = c.id) AS top FROM customers c;
-- tag: derived table
SELECT AVG(total) FROM (SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id) t;
-- tag: union all
SELECT id FROM customers UNION ALL SELECT customer_id FROM orders;
-- tag: intersect
SELECT id FROM customers INTERSECT SELECT customer_id FROM orders;
-- tag: except
SELECT id FROM customers EXCEPT SELECT customer_id FROM orders;
-- tag: nulls last
SELECT name FROM customers ORDER BY signup_date DESC NULLS LAST;
-- tag: limit offset
SELECT name FROM customers ORDER BY name LIMIT 10 OFFSET 20;
-- tag: between
SELECT COUNT(*) FROM orders WHERE amount BETWEEN 10 AND 20;
-- tag: is null
SELECT COUNT(*) FROM customers WHERE region IS NULL;
-- tag: string concat
SELECT first_name || ' ' || last_name AS full_name FROM customers;
-- tag: round
SELECT ROUND(AVG(amount), 2) FROM orders;
-- tag: nullif division
SELECT SUM(amount) / NULLIF(COUNT(*), 0) FROM orders;
-- tag: distinct
SELECT DISTINCT region FROM customers;
-- tag: qualify
SELECT name, amount FROM orders QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC) = 1;
-- tag: group by all
SELECT region, COUNT(*) FROM customers GROUP BY ALL;
-- tag: order by all
SELECT region, COUNT(*) FROM customers GROUP BY region ORDER BY ALL;
-- tag: star exclude
SELECT * EXCLUDE (email) FROM customers;
-- tag: star replace
SELECT * REPLACE (lower(name) AS name) FROM customers;
-- tag: from-first
FROM customers SELECT name;
-- tag: bare from
FROM customers;
-- tag: pivot
PIVOT monthly ON region USING SUM(amount);
-- tag: list literal
SELECT [1, 2, 3] AS xs;
-- tag: struct literal
SELECT {'a': 1, 'b': 2} AS s;
-- tag: lambda
SELECT list_transform([1, 2, 3], x -> x + 1);
-- tag: distinct on
SELECT DISTINCT ON (customer_id) customer_id, amount FROM orders ORDER BY customer_id, amount DESC;
-- tag: string_agg
SELECT region, string_agg(name, ', ') FROM customers GROUP BY region;
-- tag: arg_max
SELECT arg_max(name, amount) FROM orders;
-- tag: median / quantile
SELECT median(amount), quantile_cont(amount, 0.9) FROM orders;
-- tag: generate_series
SELECT * FROM generate_series(1, 10);
-- tag: positional parameters free: current_date
SELECT COUNT(*) FROM orders WHERE ordered_at > current_date - INTERVAL 7 DAY;
-- tag: asof join
SELECT * FROM trades t ASOF JOIN quotes q ON t.sym = q.sym AND t.ts >= q.ts;
-- tag: semi join
SELECT * FROM customers SEMI JOIN orders ON customers.id = orders.customer_id;
-- tag: using sample
SELECT * FROM orders USING SAMPLE 10%;
-- tag: recursive cte
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT SUM(n) FROM r;
-- tag: named window
SELECT month, SUM(amount) OVER w FROM monthly WINDOW w AS (ORDER BY month);
-- tag: values
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, name);
-- tag: full outer join
SELECT * FROM a FULL OUTER JOIN b ON a.id = b.id;
-- tag: cross join
SELECT COUNT(*) FROM a CROSS JOIN b;
-- tag: join using
SELECT * FROM a JOIN b USING (id);
-- tag: regexp_matches
SELECT COUNT(*) FROM customers WHERE regexp_matches(email, '@example\.com$');
-- tag: quoted identifiers
SELECT "Order Id", "Amount" FROM "Orders" WHERE "Status" = 'paid';
-- tag: greatest
SELECT greatest(a, b) FROM t;
-- tag: year function
SELECT year(ordered_at) AS y, COUNT(*) FROM orders GROUP BY year(ordered_at);
-- tag: epoch / date_diff
SELECT date_diff('day', MIN(ordered_at), MAX(ordered_at)) FROM orders;
-- tag: percent of total window
SELECT region, SUM(amount) * 100.0 / SUM(SUM(amount)) OVER () AS pct FROM orders GROUP BY region;
-- tag: exists
SELECT EXISTS (SELECT 1 FROM orders WHERE amount < 0);
-- tag: boolean literal
SELECT COUNT(*) FROM customers WHERE is_active = true;
-- tag: not in list
SELECT COUNT(*) FROM orders WHERE status NOT IN ('cancelled', 'refunded');
-- tag: nested aggregate with case
SELECT SUM(CASE WHEN status = 'paid' THEN amount ELSE 0 END) FROM orders;
