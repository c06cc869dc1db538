-- A custom transaction with \gset and \if, for bench/vs-pgbench.sh: read
-- an account, then move money one way or the other depending on what was
-- read, and log it. Either branch sends one statement, so every
-- transaction sends five whatever the data say.
\set aid random(1, 100000 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(1, 1000)
BEGIN;
SELECT abalance, bid FROM pgbench_accounts WHERE aid = :aid \gset
\if :abalance >= 0
UPDATE pgbench_accounts SET abalance = abalance - :delta WHERE aid = :aid;
\else
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
\endif
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
