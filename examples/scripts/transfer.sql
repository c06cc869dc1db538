-- A team's own transaction, for examples/script-tls.yaml: move money
-- between two accounts after reading the payer's balance, refuse an
-- overdraft in the client, and log the transfer. Runs on pgbench's
-- tables (data: init: pgbench) on PostgreSQL and MariaDB.
\set from random(1, 100000 * :scale)
\set to random(1, 100000 * :scale)
\set amount random(1, 500)
\set tid random(1, 10 * :scale)
BEGIN;
SELECT abalance, bid FROM pgbench_accounts WHERE aid = :from \gset
\if :abalance + 10000 >= :amount
UPDATE pgbench_accounts SET abalance = abalance - :amount WHERE aid = :from;
UPDATE pgbench_accounts SET abalance = abalance + :amount WHERE aid = :to;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :from, :amount, CURRENT_TIMESTAMP);
\endif
COMMIT;
