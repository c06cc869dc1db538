-- Report R4's write mix, as the built-in enc_write_mix sends it: a quarter
-- each of k = k + 1, c = ?, DELETE and INSERT by id. Half the time a
-- client deletes an id of its own residue class (id modulo --define
-- clients) when it holds none, or puts the one it deleted back, so the
-- table keeps its size, no two clients collide, and deletes and inserts
-- take a quarter each, as in the built-in workload.
-- Tables: encbench prepare oltp_point_select --tables 1 --table-size N
-- Run:    encbench run script --file examples/r4/write-mix.sql --threads T \
--           --define table_size=N --define clients=T --define deleted=0
\set r random(0, 3)
\set id random(1, :table_size)
\if :r = 0
UPDATE sbtest1 SET k = k + 1 WHERE id = :id;
\elif :r = 1
\set c random(1, 999999999999)
UPDATE sbtest1 SET c = :c WHERE id = :id;
\elif :deleted = 0
\set deleted :client_id + 1 + :clients * random(0, (:table_size - :client_id - 1) / :clients)
DELETE FROM sbtest1 WHERE id = :deleted;
\else
\set k random(1, :table_size)
INSERT INTO sbtest1 (id, k, c, pad) VALUES (:deleted, :k, 'r4', 'r4');
\set deleted 0
\endif
