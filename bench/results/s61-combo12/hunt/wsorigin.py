import socket, threading
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 29902)); srv.listen(50)
def serve(c):
    data = b""
    while b"\r\n\r\n" not in data:
        d = c.recv(4096)
        if not d: return
        data += d
    if b"upgrade: websocket" in data.lower():
        c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: x\r\n\r\n")
        while True:
            d = c.recv(4096)
            if not d: break
            c.sendall(d.upper())
    else:
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    c.close()
while True:
    c, _ = srv.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
