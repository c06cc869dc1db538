-- Report R4's point query on the secondary key k, as the built-in
-- enc_point_select_k sends it: SELECT c WHERE k = ? (several rows may match).
-- Tables: encbench prepare oltp_point_select --tables 1 --table-size N
-- Run:    encbench run script --file examples/r4/point-k.sql --define table_size=N
\set k random(1, :table_size)
SELECT c FROM sbtest1 WHERE k = :k;
