# The probe of bench/newconn/run.sh: one new connection every 100 ms (GET path, Connection: close), each timed from
# connect to the end of the answer; a connection that takes longer than 20 s is counted as failed.
# Prints p50, p90, p99 and max in ms.
import socket, sys, time
port, path, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
lat, failed = [], 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    t = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=20)
        s.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        d = b""
        while True:
            b = s.recv(4096)
            if not b:
                break
            d += b
        s.close()
        if not d.startswith(b"HTTP/1.1 200"):
            failed += 1
        lat.append((time.monotonic() - t) * 1000)
    except OSError:
        failed += 1
    time.sleep(0.1)
lat.sort()
if not lat: lat = [float("nan")]
n = len(lat)
q = lambda p: lat[min(n - 1, int(p * n))]
print("n %d failed %d p50 %.1f p90 %.1f p99 %.1f max %.1f" % (n, failed, q(.5), q(.9), q(.99), lat[-1]))
