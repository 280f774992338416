# hang.py PORT: accepts connections and never answers (a JWKS endpoint that hangs)
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(64); held = []
while True:
    c, _ = s.accept(); held.append(c); print('held', len(held), flush=True)
