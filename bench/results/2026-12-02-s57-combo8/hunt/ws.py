import socket, ssl, os, sys, base64, struct, time
def connect(port, tls=False, path=__import__("os").environ.get("WSPATH","/ws")):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    if tls:
        ctx = ssl.create_default_context(); ctx.check_hostname=False; ctx.verify_mode=ssl.CERT_NONE; ctx.set_alpn_protocols(["http/1.1"])
        s = ctx.wrap_socket(s, server_hostname="localhost")
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    head=b""
    while b"\r\n\r\n" not in head:
        d=s.recv(1); 
        if not d: raise Exception("EOF in head: %r"%head)
        head+=d
    return s, head.decode().split("\r\n")[0]
def send(s, payload, op=1):
    mask=os.urandom(4); b=bytes(x^mask[i%4] for i,x in enumerate(payload))
    n=len(payload)
    hdr=bytes([0x80|op]) + (bytes([0x80|n]) if n<126 else bytes([0x80|126])+struct.pack(">H",n) if n<65536 else bytes([0x80|127])+struct.pack(">Q",n))
    s.sendall(hdr+mask+b)
def recvn(s,n):
    b=b""
    while len(b)<n:
        d=s.recv(n-len(b))
        if not d: raise EOFError("EOF after %d"%len(b))
        b+=d
    return b
def recv(s):
    h=recvn(s,2); op=h[0]&15; n=h[1]&127
    if n==126: n=struct.unpack(">H",recvn(s,2))[0]
    elif n==127: n=struct.unpack(">Q",recvn(s,8))[0]
    return op, recvn(s,n)
if __name__=="__main__":
    port=int(sys.argv[1]); tls=len(sys.argv)>2 and sys.argv[2]=="tls"; hold=float(sys.argv[3]) if len(sys.argv)>3 else 0
    s,status=connect(port,tls); print("status", status, flush=True)
    send(s,b"hello"); print("echo", recv(s), flush=True)
    t0=time.time(); i=0
    try:
        while time.time()-t0<hold:
            time.sleep(0.5); i+=1; send(s,b"m%d"%i); print("echo", recv(s), round(time.time()-t0,1), flush=True)
    except Exception as e: print("ERR", repr(e), round(time.time()-t0,1), flush=True)
