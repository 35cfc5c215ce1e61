#!/usr/bin/env python3
"""A TCP receiver for the output tests: accepts connections on 127.0.0.1:PORT and
appends every byte it reads to OUT (flushed at once), one connection at a time.

  --rcvbuf N          small receive buffer (set before listen, so accepted sockets
                      inherit it): a stalled receiver then holds little in the kernel
  --mss N             small MSS (TCP_MAXSEG before listen): on loopback the sender's
                      send buffer is sized from the MSS (2 x 10 segments at connect),
                      64K segments let it take ~3 MB that a stalled receiver never read
  --stall-after B     read B bytes normally, then stop reading ...
  --stall-until FILE  ... until FILE exists (then read again to the end)
  --conns FILE        appends one line per accepted connection (its number)
Exits on SIGTERM/SIGINT; never reads stdin.
"""
import argparse, os, signal, socket, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--rcvbuf", type=int, default=0)
ap.add_argument("--mss", type=int, default=0)
ap.add_argument("--stall-after", type=int, default=0)
ap.add_argument("--stall-until", default="")
ap.add_argument("--conns", default="")
a = ap.parse_args()

signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
if a.rcvbuf:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
if a.mss:
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, a.mss)
s.bind(("127.0.0.1", a.port))
s.listen(16)
out = open(a.out, "ab", buffering=0)
total = 0
stalled_once = False
nconn = 0
while True:
    c, _ = s.accept()
    nconn += 1
    if a.conns:
        with open(a.conns, "a") as f:
            f.write("%d\n" % nconn)
    while True:
        if not stalled_once and a.stall_until and total >= a.stall_after:
            stalled_once = True
            while not os.path.exists(a.stall_until):
                time.sleep(0.02)
        want = 65536
        if not stalled_once and a.stall_until:
            want = max(1, min(want, a.stall_after - total))
        try:
            b = c.recv(want)
        except ConnectionResetError:
            b = b""
        if not b:
            break
        total += len(b)
        out.write(b)
    c.close()
