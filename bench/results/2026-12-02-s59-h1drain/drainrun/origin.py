import socket, threading, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 29701)); s.listen(50)
held = []
def serve(c):
    data = b""
    while b"\r\n\r\n" not in data:
        d = c.recv(4096)
        if not d: return
        data += d
    print("origin got:", data.split(b"\r\n")[0].decode(), flush=True)
    while c.recv(4096): pass   # never answers
while True:
    c, _ = s.accept(); held.append(c)
    threading.Thread(target=serve, args=(c,), daemon=True).start()
