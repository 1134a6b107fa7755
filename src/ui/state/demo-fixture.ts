/**
 * A tiny built-in fixture so the page is usable without uploading anything.
 * Portable SQL: it loads the same way into DuckDB and SQLite.
 */
export const DEMO_FIXTURE_NAME = 'demo_shop';

export const DEMO_SQL = `CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  name VARCHAR(60) NOT NULL,
  country VARCHAR(2),
  signed_up DATE NOT NULL
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  ordered_at TIMESTAMP NOT NULL,
  amount DECIMAL(10,2),
  status VARCHAR(12) NOT NULL
);
INSERT INTO customers VALUES
  (1, 'Customer 001', 'DE', '2024-01-15'),
  (2, 'Client Ünal', 'TR', '2024-03-02'),
  (3, 'Kunde Ωμέγα', 'GR', '2024-07-30'),
  (4, 'Customer 004', NULL, '2025-02-28');
INSERT INTO orders VALUES
  (10, 1, '2025-01-03 09:15:00', 12.50, 'shipped'),
  (11, 1, '2025-02-11 17:40:05', 99.99, 'shipped'),
  (12, 2, '2025-02-12 08:00:00', 0.00, 'refunded'),
  (13, 3, '2025-03-01 23:59:59', 250.00, 'shipped'),
  (14, 3, '2025-03-02 00:00:00', -20.00, 'adjusted'),
  (15, 4, '2025-03-05 12:00:00', NULL, 'pending');
`;

export const DEMO_QUERY = `SELECT c.name, count(o.id) AS orders, sum(o.amount) AS revenue
FROM customers c
LEFT JOIN orders o ON o.customer_id = c.id
GROUP BY c.name
ORDER BY revenue DESC NULLS LAST, c.name`;
