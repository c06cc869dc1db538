-- Report R4's point query on the primary key, as the built-in
-- enc_point_select sends it: SELECT c WHERE id = ?.
-- Tables: encbench prepare oltp_point_select --tables 1 --table-size N
-- Run:    encbench run script --file examples/r4/point-id.sql --define table_size=N
\set id random(1, :table_size)
SELECT c FROM sbtest1 WHERE id = :id;
