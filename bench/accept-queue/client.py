# The clients of bench/accept-queue/run.sh: see there.
# N non-blocking connects at once (as wrk does); each sends one request as soon as connected, as wrk does, and times
# the answer from that send (wrk's latency). Prints the distribution and how many took >= 5 s (wrk's timeouts).
import socket, sys, time, selectors, errno
port, n, run = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
sel = selectors.DefaultSelector(); t0 = time.monotonic()
for i in range(n):
    s = socket.socket(); s.setblocking(False)
    r = s.connect_ex(("127.0.0.1", port))
    sel.register(s, selectors.EVENT_WRITE, {"sent": None, "i": i})
lat = []; connected_at = []; resets = 0
while time.monotonic() - t0 < run and len(lat) < n:
    for k, m in sel.select(timeout=0.1):
        s, st = k.fileobj, k.data
        if m & selectors.EVENT_WRITE:
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR): sel.unregister(s); continue
            s.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"); st["sent"] = time.monotonic()
            connected_at.append(st["sent"] - t0)
            sel.modify(s, selectors.EVENT_READ, st)
        else:
            try:
                d = s.recv(4096)
            except OSError:
                resets += 1; sel.unregister(s); continue
            if d:
                lat.append(time.monotonic() - st["sent"]); sel.unregister(s)
lat.sort()
pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")
late = sum(1 for x in lat if x >= 5)
print(f"answered {len(lat)} of {n}; connected {len(connected_at)}; latency from send p50 {pct(.5):.3f}s "
      f"p90 {pct(.9):.3f}s p99 {pct(.99):.3f}s max {lat[-1] if lat else 0:.3f}s; >=5 s: {late}; "
      f"1-5 s: {sum(1 for x in lat if 1 <= x < 5)}; resets {resets}")
