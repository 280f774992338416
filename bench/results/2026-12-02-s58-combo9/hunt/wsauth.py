# wsauth.py PORT PATH [KEY]: a WebSocket upgrade over HTTP/1.1; prints the answer's head (and whether 101 came)
import socket, sys
s = socket.create_connection(('127.0.0.1', int(sys.argv[1]))); s.settimeout(5)
key = f'X-Api-Key: {sys.argv[3]}\r\n' if len(sys.argv) > 3 else ''
s.sendall((f'GET {sys.argv[2]} HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n'
           f'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{key}\r\n').encode())
d = b''
while b'\r\n\r\n' not in d:
    c = s.recv(4096)
    if not c: break
    d += c
print(d.split(b'\r\n\r\n')[0].decode(errors='replace').replace('\r\n', ' | '))
