# A burst of first requests of every kind at once against one fresh gateway: burst.py PORT [tls]
# h1 GET (/hello, an HTTP/1.1 origin), h2 (h2c or TLS+ALPN) GETs to the HTTP/1.1 and the h2c origin, gRPC unary
# over h2, WebSocket echo, a rate-limited route (burst 10: 429s beyond are expected), an ApiKeyAuth route (with the
# key: 200; without: 401). All threads start at one barrier. Prints each kind's outcomes.
import socket, ssl, sys, threading, collections, struct, http.client
import h2.connection, h2.config, h2.events
_here=__import__("os").path.dirname(__import__("os").path.abspath(__file__))
sys.path.insert(0, _here + "/../../2026-12-01-s55-combo5/hunt")  # its WebSocket client, ws.py
import ws
port=int(sys.argv[1]); tls=len(sys.argv)>2 and sys.argv[2]=="tls"
N=int(sys.argv[3]) if len(sys.argv)>3 else 10
res=collections.defaultdict(collections.Counter); lock=threading.Lock()
def note(kind, what):
    with lock: res[kind][what]+=1
def sock(alpn):
    s=socket.create_connection(("127.0.0.1",port),timeout=10)
    if tls:
        ctx=ssl.create_default_context(); ctx.check_hostname=False; ctx.verify_mode=ssl.CERT_NONE; ctx.set_alpn_protocols([alpn])
        s=ctx.wrap_socket(s, server_hostname="localhost")
    return s
def h1(path, kind, headers={}):
    try:
        s=sock("http/1.1"); c=http.client.HTTPConnection("127.0.0.1",port); c.sock=s
        c.request("GET",path,headers=headers); r=c.getresponse(); r.read(); note(kind, r.status); c.close()
    except Exception as e: note(kind, "EXC "+type(e).__name__+" "+str(e)[:60])
def h2req(path, kind, grpc=False):
    try:
        s=sock("h2")
        c=h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        c.initiate_connection(); s.sendall(c.data_to_send())
        hs=[(":method","POST" if grpc else "GET"),(":scheme","https" if tls else "http"),(":path",path),(":authority","localhost")]
        if grpc: hs+= [("content-type","application/grpc"),("te","trailers")]
        c.send_headers(1,hs,end_stream=not grpc)
        if grpc: c.send_data(1,b"\x00\x00\x00\x00\x02\x0a\x00",end_stream=True)
        s.sendall(c.data_to_send()); status=None; gs=None
        while True:
            d=s.recv(65536)
            if not d: note(kind,"EOF"); return
            for e in c.receive_data(d):
                if isinstance(e,h2.events.ResponseReceived): status=dict(e.headers)[":status"]; gs=dict(e.headers).get("grpc-status",gs)
                elif isinstance(e,h2.events.TrailersReceived): gs=dict(e.headers).get("grpc-status")
                elif isinstance(e,h2.events.DataReceived): c.acknowledge_received_data(e.flow_controlled_length,e.stream_id)
                elif isinstance(e,h2.events.StreamReset): note(kind,"RST %s"%e.error_code); return
                elif isinstance(e,h2.events.StreamEnded):
                    note(kind, status + (" grpc-status=%s"%gs if grpc else "")); s.close(); return
            s.sendall(c.data_to_send())
    except Exception as e: note(kind, "EXC "+type(e).__name__+" "+str(e)[:60])
def wsecho(kind):
    try:
        s,status=ws.connect(port,tls)
        ws.send(s,b"hi"); op,p=ws.recv(s); note(kind, status.split(" ",1)[1]+" echo="+p.decode()); s.close()
    except Exception as e: note(kind, "EXC "+type(e).__name__+" "+str(e)[:60])
jobs=[]
for i in range(N):
    jobs+= [lambda: h1("/hello","h1 /hello"), lambda: h2req("/hello","h2 /hello (h1 origin)"),
            lambda: h2req("/h2/ok","h2 /h2/ok (h2c origin)"), lambda: h1("/h2/ok","h1 /h2/ok (h2c origin)"),
            lambda: h2req("/g.Svc/M","grpc",True), lambda: wsecho("websocket"),
            lambda: h1("/api/data?delay=0","rate-limited (burst 10)"),
            lambda: h1("/echo","auth with key",{"X-Api-Key":"k7-secret"}), lambda: h1("/echo","auth without key")]
bar=threading.Barrier(len(jobs))
def run(j): bar.wait(); j()
ts=[threading.Thread(target=run,args=(j,)) for j in jobs]
for t in ts: t.start()
for t in ts: t.join()
for k in sorted(res): print(f"{k:28s} {dict(res[k])}")
