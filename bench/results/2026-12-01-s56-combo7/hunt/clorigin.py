# HTTP/1.1 origin on 29602 whose Content-Length disagrees with its body, keep-alive, by path:
#   /short : Content-Length 10, sends 5 bytes, then closes
#   /long  : Content-Length 5, sends 10 bytes ("AAAAABBBBB") and keeps the connection (surplus = "BBBBB")
#   /ok    : Content-Length 2, "ok"
#   /hold-short : Content-Length 10, sends 5 bytes and holds the connection open 3 s, then closes
import socket, threading, time, sys
log=open("/tmp/combo7-clorigin.log","a")
def serve(c, n):
    f=c.makefile('rb')
    try:
        while True:
            line=f.readline()
            if not line: break
            while True:
                h=f.readline()
                if h in (b"\r\n",b""): break
            path=line.split()[1].decode()
            log.write(f"conn{n} {line.strip().decode()}\n"); log.flush()
            if "/short" in path:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nAAAAA"); time.sleep(0.05); break
            elif "/hold-short" in path:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nAAAAA"); time.sleep(3); break
            elif "/long" in path:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nAAAAABBBBB")
            else:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    finally: c.close()
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR,1); s.bind(("127.0.0.1",29602)); s.listen(50)
n=0
while True:
    c,_=s.accept(); n+=1; threading.Thread(target=serve,args=(c,n),daemon=True).start()
