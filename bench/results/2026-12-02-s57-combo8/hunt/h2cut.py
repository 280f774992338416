# HTTP/2 origin (h2c prior knowledge, or TLS with ALPN h2 when argv[2] is a cert/key prefix), port argv[1] (29503):
#   /<anything>/<id>?after=N&mode=rst|goaway|503   first try: once N bytes of DATA came, rst: RST_STREAM
#   INTERNAL_ERROR; goaway: GOAWAY (last stream 0... no: the stream's id) and close; 503: a 503 head+body, END_STREAM.
#   later tries: at END_STREAM answer 200 "len=<n> sha=<hex>" (gRPC path /g.*: a gRPC answer with the length).
import socket, threading, sys, hashlib, ssl, urllib.parse, h2.connection, h2.config, h2.events
PORT=int(sys.argv[1]) if len(sys.argv)>1 else 29503
TLS=sys.argv[2] if len(sys.argv)>2 else None
seen=set(); lock=threading.Lock()
def serve(s):
    c=h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, validate_outbound_headers=False, normalize_outbound_headers=False))
    c.initiate_connection(); s.sendall(c.data_to_send()); st={}
    try:
      while True:
        d=s.recv(65536)
        if not d: break
        close=False
        for e in c.receive_data(d):
            if isinstance(e,h2.events.RequestReceived):
                h={ (k.decode() if isinstance(k,bytes) else k):(v.decode() if isinstance(v,bytes) else v) for k,v in e.headers}
                u=urllib.parse.urlparse(h[':path']); q=dict(urllib.parse.parse_qsl(u.query)); ident=u.path.rsplit('/',1)[-1]
                mode=q.get('mode','ok')
                with lock:
                    first= mode!='ok' and ident not in seen; seen.add(ident)
                st[e.stream_id]=dict(path=u.path,ident=ident,mode=mode,after=int(q.get('after','0')),first=first,body=b'',done=False,grpc=u.path.startswith('/g.'))
                print(f"origin {PORT} stream {e.stream_id} {h[':path']} first={first} cl={h.get('content-length')}", flush=True)
            if isinstance(e,h2.events.DataReceived):
                c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                x=st.get(e.stream_id)
                if x is None or x['done']: continue
                x['body']+=e.data
                if x['first'] and len(x['body'])>=x['after']:
                    x['done']=True
                    print(f"origin {PORT} {x['ident']}: cut after {len(x['body'])} bytes ({x['mode']})", flush=True)
                    if x['mode']=='rst': c.reset_stream(e.stream_id,2)
                    elif x['mode']=='503':
                        c.send_headers(e.stream_id,[(":status","503"),("content-length","4")]); c.send_data(e.stream_id,b"busy",end_stream=True)
                    elif x['mode']=='goaway':
                        c.close_connection(error_code=0,last_stream_id=e.stream_id); close=True
            if isinstance(e,h2.events.StreamEnded):
                x=st.get(e.stream_id)
                if x is None or x['done']: continue
                x['done']=True
                if x['first']:
                    print(f"origin {PORT} {x['ident']}: whole body {len(x['body'])} before the cut point ({x['mode']})", flush=True)
                    c.reset_stream(e.stream_id,2); continue
                b=x['body']
                ans=f"len={len(b)} sha={hashlib.sha256(b).hexdigest()[:16]}\n".encode()
                if x['grpc']:
                    msg=b'\x0a'+bytes([len(ans)])+ans
                    c.send_headers(e.stream_id,[(":status","200"),("content-type","application/grpc")])
                    c.send_data(e.stream_id,b'\x00'+len(msg).to_bytes(4,'big')+msg)
                    c.send_headers(e.stream_id,[("grpc-status","0")],end_stream=True)
                else:
                    c.send_headers(e.stream_id,[(":status","200"),("content-length",str(len(ans)))]); c.send_data(e.stream_id,ans,end_stream=True)
                print(f"origin {PORT} {x['ident']}: answered {ans!r}", flush=True)
        out=c.data_to_send()
        if out: s.sendall(out)
        if close: break
    except Exception as ex: print("origin exc", repr(ex), flush=True)
    finally: s.close()
l=socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR,1); l.bind(("127.0.0.1",PORT)); l.listen(100)
ctx=None
if TLS:
    ctx=ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(TLS+".crt",TLS+".key"); ctx.set_alpn_protocols(["h2"])
while True:
    s,_=l.accept()
    if ctx:
        try: s=ctx.wrap_socket(s,server_side=True)
        except Exception as ex: print("tls exc",repr(ex),flush=True); continue
    threading.Thread(target=serve,args=(s,),daemon=True).start()
