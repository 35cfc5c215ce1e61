\set aid random(1, 100000)
\startpipeline
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT 1;
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
SELECT 2;
\endpipeline
