-- Report R4's range sum on the secondary key k, as the built-in
-- enc_range_sum_k sends it: SELECT SUM(k) WHERE k BETWEEN ? AND ? + range_size - 1.
-- Tables: encbench prepare oltp_point_select --tables 1 --table-size N
-- Run:    encbench run script --file examples/r4/range-k.sql --define table_size=N --define range_size=100
\set lo random(1, :table_size - :range_size + 1)
\set hi :lo + :range_size - 1
SELECT SUM(k) FROM sbtest1 WHERE k BETWEEN :lo AND :hi;
