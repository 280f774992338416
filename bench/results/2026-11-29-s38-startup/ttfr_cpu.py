#!/usr/bin/env python3
"""ttfr.py with the process's CPU time (user+sys, all threads) at the first 200: prints 'wall_ms cpu_ms'."""
import os, signal, socket, subprocess, sys, time
port, path = int(sys.argv[1]), sys.argv[2]
cmd = sys.argv[4:]
request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
log = open(os.environ.get("TTFR_LOG", "/dev/null"), "ab")
tick = os.sysconf("SC_CLK_TCK")
t0 = time.monotonic()
proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
answered = None
cpu = None
while time.monotonic() - t0 < 120 and proc.poll() is None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(request)
            if s.recv(16).startswith(b"HTTP/1.1 200"):
                answered = time.monotonic() - t0
                f = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
                cpu = (int(f[11]) + int(f[12])) * 1000 // tick
                if os.environ.get("TTFR_THREADS"):
                    per = {}
                    for t in os.listdir(f"/proc/{proc.pid}/task"):
                        try:
                            st = open(f"/proc/{proc.pid}/task/{t}/stat").read()
                        except OSError:
                            continue
                        name = st[st.index("(") + 1:st.rindex(")")]
                        g = st.rsplit(")", 1)[1].split()
                        name = name.rstrip("0123456789 ") or name
                        per[name] = per.get(name, 0) + (int(g[11]) + int(g[12])) * 1000 // tick
                    with open(os.environ["TTFR_THREADS"], "a") as out:
                        out.write(" ".join(f"{k}={v}" for k, v in sorted(per.items(), key=lambda kv: -kv[1]) if v) + "\n")
                break
    except OSError:
        pass
    time.sleep(0.002)
proc.send_signal(signal.SIGTERM)
try:
    proc.wait(120)
except subprocess.TimeoutExpired:
    proc.kill()
print(f"{answered * 1000:.0f} {cpu}" if answered is not None else "failed")
