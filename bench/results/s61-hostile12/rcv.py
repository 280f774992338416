import socket, threading, time, sys
PORT=29810
srv=socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR,1); srv.bind(('127.0.0.1',PORT)); srv.listen(1)
sent=[0]; blocked_since=[None]
def serve():
    c,_=srv.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY,1)
    chunk=b'b'*65536
    c.settimeout(30)
    try:
        while sent[0] < 32*1024*1024:
            n=c.send(chunk); sent[0]+=n
    except Exception as e:
        print('server write ended', e)
threading.Thread(target=serve,daemon=True).start()
cl=socket.socket()
if len(sys.argv)>1: cl.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(sys.argv[1]))
cl.connect(('127.0.0.1',PORT))
for i in range(12):
    time.sleep(0.5)
    print(f"{(i+1)*0.5:4.1f}s sent={sent[0]} client rcvbuf={cl.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)}")
