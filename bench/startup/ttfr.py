#!/usr/bin/env python3
"""Time from exec to the first 200 answered through a route: starts the command, sends GET <path> on a new
connection every 2 ms until one answers 200, prints the milliseconds, then stops the process (SIGTERM).
  ttfr.py PORT PATH -- COMMAND ARGS...      (the gateway's output goes to $TTFR_LOG, default /dev/null)"""
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
while time.monotonic() - t0 < 60 and proc.poll() is None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(request)
            if s.recv(16).startswith(b"HTTP/1.1 200"):
                answered = time.monotonic() - t0
                break
    except OSError:
        pass  # not listening yet
    time.sleep(0.002)
proc.send_signal(signal.SIGTERM)
try:
    proc.wait(120)
except subprocess.TimeoutExpired:
    proc.kill()
print(f"{answered * 1000:.0f}" if answered is not None else "failed")
