"""Prints a port on 127.0.0.1 that is free for TCP and for UDP, for a test's
server, below the kernel's ephemeral range (ip_local_port_range).

Why below: a UDP client whose socket has SO_REUSEPORT (dig's, and any client
on BIND's network manager) may be autobound by the kernel to a port a server
of the same user holds with SO_REUSEPORT, its own included. Its query then
goes to itself, not to the server, and it reads it back as the answer. The
kernel never autobinds outside the ephemeral range, so a server port below it
cannot be a client's. And from 20000 up: the ports the tests and benchmarks
fix for themselves (15353, 18600, 19378, ...) are all below it.

With a file's path as its argument: never a port listed there, and the port
printed is added to it. A test takes its ports before it binds them, so a
port free at the first call is still free at the second."""
import random
import socket
import sys

given = set()
if len(sys.argv) > 1:
    try:
        given = {int(l) for l in open(sys.argv[1]) if l.strip().isdigit()}
    except FileNotFoundError:
        pass

lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
cands = [p for p in range(20000, lo) if p not in given]
random.shuffle(cands)
port = None
for p in cands[:500]:
    try:
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
            with socket.socket(socket.AF_INET, kind) as s:
                s.bind(("127.0.0.1", p))
    except OSError:
        continue
    port = p
    break
while port is None or port in given:
    # none free from 20000 to the ephemeral range: any, as the kernel picks
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
if len(sys.argv) > 1:
    with open(sys.argv[1], "a") as f:
        f.write("%d\n" % port)
print(port)
