# slowchunks.py PORT PATH N SIZE: HTTP/1.1 chunked POST of N chunks of SIZE bytes, 0.3 s apart; prints the status line
import socket, sys, time
s = socket.create_connection(('127.0.0.1', int(sys.argv[1]))); s.settimeout(10)
s.sendall(f'POST {sys.argv[2]} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n'.encode())
n, size = int(sys.argv[3]), int(sys.argv[4])
try:
    for i in range(n):
        s.sendall(b'%x\r\n' % size + b'a' * size + b'\r\n'); time.sleep(0.3)
    s.sendall(b'0\r\n\r\n')
except OSError as e: print('send', e)
print(s.recv(4096).split(b'\r\n')[0].decode())
