"""psycopg 3 (Debian's python3-psycopg) against PostgreSQL at 127.0.0.1:PORT:
executemany's batch of 200 rows (one prepared statement's Bind and Execute
for each row before one Sync: about 8 kB, answered in writes of more than
the snaplen), a pipeline whose second statement fails (the server skips
the rest to the Sync), and COPY both ways. Prints what it did."""
import sys

import psycopg

port = sys.argv[1]
with psycopg.connect("host=127.0.0.1 port=%s user=postgres dbname=postgres" % port,
                     autocommit=True) as c:
    c.execute("CREATE TABLE e2e_batch (a int, b text)")
    with c.cursor() as cur:
        cur.executemany("INSERT INTO e2e_batch VALUES (%s, %s)", [(i, "r%d" % i) for i in range(200)])
    failed = False
    try:
        with c.pipeline():
            c.execute("SELECT 1")
            # fails a second after it began, by when psycopg has sent the
            # two after it (it sends without waiting in a pipeline)
            c.execute("SELECT 1 / length(pg_sleep(1)::text)")
            c.execute("SELECT 3")
            c.execute("SELECT 4")
    except psycopg.errors.DivisionByZero:
        failed = True
    with c.cursor() as cur:
        with cur.copy("COPY e2e_batch FROM STDIN") as cp:
            for i in range(5):
                cp.write_row((100 + i, "c%d" % i))
        with cur.copy("COPY e2e_batch TO STDOUT") as cp:
            out = sum(1 for _ in cp.rows())
    c.execute("DROP TABLE e2e_batch")
print("inserted 200, pipeline failed %s, copied out %d" % (failed, out))
