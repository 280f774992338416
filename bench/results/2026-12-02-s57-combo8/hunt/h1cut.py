# HTTP/1.1 origin (port argv[1], default 29502) that fails each id's first try after reading part of the body:
#   /<anything>/<id>?after=N&mode=rst|close|503   first try: read N bytes past the head (framing included), then
#   rst: close with a reset (SO_LINGER 0); close: a FIN; 503: answer 503 (Connection: close) and close.
#   later tries (and mode=ok): read the whole body (Content-Length or chunked) and answer 200 "len=<n> sha=<hex>".
import socket, threading, sys, hashlib, struct, urllib.parse
PORT=int(sys.argv[1]) if len(sys.argv)>1 else 29502
seen=set(); lock=threading.Lock()
def readline(f):
    return f.readline(65536)
def serve(s):
    f=s.makefile('rb')
    try:
        line=readline(f)
        if not line: return
        method,target,_=line.decode().split(' ',2)
        h={}
        while True:
            l=readline(f)
            if l in (b'\r\n',b'\n',b''): break
            k,v=l.decode().split(':',1); h[k.strip().lower()]=v.strip()
        u=urllib.parse.urlparse(target); q=dict(urllib.parse.parse_qsl(u.query)); ident=u.path.rsplit('/',1)[-1]
        mode=q.get('mode','ok'); after=int(q.get('after','0'))
        with lock:
            first = mode!='ok' and ident not in seen; seen.add(ident)
        print(f"origin {PORT} {method} {target} first={first} cl={h.get('content-length')} te={h.get('transfer-encoding')}", flush=True)
        if first:
            got=0
            while got<after:
                d=f.read1(after-got) if hasattr(f,'read1') else f.read(after-got)
                if not d: break
                got+=len(d)
            print(f"origin {PORT} {ident}: cut after {got} bytes ({mode})", flush=True)
            if mode=='rst':
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii',1,0))
            elif mode=='503':
                s.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbusy")
            return
        body=b''
        if 'content-length' in h:
            n=int(h['content-length'])
            while len(body)<n:
                d=f.read(n-len(body))
                if not d: break
                body+=d
        elif h.get('transfer-encoding','').lower()=='chunked':
            while True:
                size=int(readline(f).split(b';')[0],16)
                if size==0:
                    while readline(f) not in (b'\r\n',b'\n',b''): pass
                    break
                body+=f.read(size); readline(f)
        ans=f"len={len(body)} sha={hashlib.sha256(body).hexdigest()[:16]}\n".encode()
        print(f"origin {PORT} {ident}: answered {ans!r}", flush=True)
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(ans) + ans)
    except Exception as ex:
        print("origin exc", repr(ex), flush=True)
    finally:
        try: s.close()
        except Exception: pass
l=socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR,1); l.bind(("127.0.0.1",PORT)); l.listen(100)
while True:
    s,_=l.accept(); threading.Thread(target=serve,args=(s,),daemon=True).start()
