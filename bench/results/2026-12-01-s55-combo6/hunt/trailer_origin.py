# HTTP/1.1 origin on 29802: every answer chunked with a trailer field (x-sum), keep-alive
import socket, threading
def serve(c):
    f=c.makefile('rb')
    try:
        while True:
            line=f.readline()
            if not line: break
            while True:
                h=f.readline()
                if h in (b"\r\n",b""): break
            body=b"hello trailers"
            c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: x-sum\r\nContent-Type: text/plain\r\n\r\n"
                      + b"%x\r\n" % len(body) + body + b"\r\n0\r\nx-sum: 42\r\n\r\n")
    finally: c.close()
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR,1); s.bind(("127.0.0.1",29802)); s.listen(50)
while True:
    c,_=s.accept(); threading.Thread(target=serve,args=(c,),daemon=True).start()
