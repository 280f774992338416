import socket, threading, time, sys
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 29711)); srv.listen(50)
def serve(c):
    t0 = time.time(); data = b""
    while b"\r\n\r\n" not in data:
        d = c.recv(4096)
        if not d: return
        data += d
    line = data.split(b"\r\n")[0].decode()
    c.settimeout(5.0)
    try:
        d = c.recv(1)
        print(f"{line}: origin connection closed by the gateway after {time.time()-t0:.2f}s", flush=True); c.close(); return
    except socket.timeout:
        pass
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nslow")
    print(f"{line}: answered after {time.time()-t0:.2f}s", flush=True)
    c.close()
while True:
    c, _ = srv.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
