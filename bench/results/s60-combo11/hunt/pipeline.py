# pipeline.py PORT: three plain HTTP/1.1 clients of a gateway before slow.py: A pipelines two slow GETs and stays;
# B sends a slow GET and half-closes (shutdown SHUT_WR) and stays reading; C sends a slow GET and stays. Holds them
# 6 s (the caller SIGTERMs the gateway meanwhile), then prints what each read.
import socket, sys, time
port = int(sys.argv[1])
def conn():
    s = socket.create_connection(('127.0.0.1', port)); s.settimeout(8); return s
a, b, c = conn(), conn(), conn()
a.sendall(b'GET /slow-pipe-1 HTTP/1.1\r\nHost: h\r\n\r\nGET /slow-pipe-2 HTTP/1.1\r\nHost: h\r\n\r\n')
b.sendall(b'GET /slow-halfclose HTTP/1.1\r\nHost: h\r\n\r\n'); b.shutdown(socket.SHUT_WR)
c.sendall(b'GET /slow-stay HTTP/1.1\r\nHost: h\r\n\r\n')
print('sent', flush=True)
for name, s in (('A', a), ('B', b), ('C', c)):
    try:
        print(name, repr(s.recv(200)), flush=True)
    except Exception as e:
        print(name, repr(e), flush=True)
