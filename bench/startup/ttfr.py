#!/usr/bin/env python3
"""Time from exec to the first 200 answered through a route: starts the command, sends GET <path> on a new
connection every 2 ms until one answers 200, prints the milliseconds and the process's CPU time by then (user + system,
all its threads, from /proc/PID/stat; the steadier figure on a loaded machine), then stops it (SIGTERM).
  ttfr.py PORT PATH -- COMMAND ARGS...      (the gateway's output goes to $TTFR_LOG, default /dev/null)
Prints "<wall ms> <cpu ms>", or "failed" when nothing answered 200 within 60 s. With TTFR_THREADS=<file>, also writes
each thread's CPU by then to that file, one "<cpu ms> <thread name>" a line, most first (where the CPU went: the JIT's
compiler threads, JFR, GC, main)."""
import os
import signal
import socket
import subprocess
import sys
import time

port, path = int(sys.argv[1]), sys.argv[2]
cmd = sys.argv[4:] if sys.argv[3] == "--" else sys.argv[3:]
request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
log = open(os.environ.get("TTFR_LOG", "/dev/null"), "ab")
t0 = time.monotonic()
proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
answered = None
cpu = None
tick = os.sysconf("SC_CLK_TCK")
while time.monotonic() - t0 < 60 and proc.poll() is None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(request)
            if s.recv(16).startswith(b"HTTP/1.1 200"):
                answered = time.monotonic() - t0
                stat = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
                cpu = (int(stat[11]) + int(stat[12])) * 1000 // tick  # utime + stime
                if os.environ.get("TTFR_THREADS"):
                    threads = []
                    for tid in os.listdir(f"/proc/{proc.pid}/task"):
                        try:
                            name, rest = open(f"/proc/{proc.pid}/task/{tid}/stat").read().split("(", 1)[1].rsplit(")", 1)
                        except OSError:
                            continue  # ended meanwhile
                        fields = rest.split()
                        threads.append(((int(fields[11]) + int(fields[12])) * 1000 // tick, name))
                    with open(os.environ["TTFR_THREADS"], "w") as out:
                        out.writelines(f"{ms} {name}\n" for ms, name in sorted(threads, reverse=True))
                break
    except OSError:
        pass  # not listening yet
    time.sleep(0.002)
proc.send_signal(signal.SIGTERM)
try:
    proc.wait(120)
except subprocess.TimeoutExpired:
    proc.kill()
print(f"{answered * 1000:.0f} {cpu}" if answered is not None else "failed")
