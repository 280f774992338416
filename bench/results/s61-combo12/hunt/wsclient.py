import socket, ssl, sys, time, subprocess
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
ctx.set_alpn_protocols(["http/1.1"])
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", 29910)), server_hostname="localhost")
s.settimeout(10)
s.sendall(b"GET /ws/chat HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
head = b""
while b"\r\n\r\n" not in head: head += s.recv(1)
print("head:", head.split(b"\r\n")[0].decode())
def echo(msg):
    s.sendall(msg); got = b""
    while len(got) < len(msg): got += s.recv(100)
    print("echo", msg, "->", got)
echo(b"before")
# reload: the ws route's filters changed, and a route added
subprocess.run(["sed", "-i", sys.argv[1], sys.argv[2]])
t0 = time.time()
print("edited at", time.strftime("%T"))
time.sleep(float(sys.argv[3]))
echo(b"after-reload")
s.close()
