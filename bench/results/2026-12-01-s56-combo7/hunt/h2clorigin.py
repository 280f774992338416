# h2c origin (prior knowledge) on 29603 whose content-length disagrees with its DATA, by path:
#   /short: content-length 10, DATA 5 bytes + END_STREAM ; /long: content-length 5, DATA 10 + END_STREAM ; /ok
#   /g.Svc/*: a gRPC answer (one message, trailers grpc-status 0)
#   /trunc: content-length 10, DATA 5, then RST_STREAM(INTERNAL_ERROR)
import socket, threading, h2.connection, h2.config, h2.events
def serve(s):
    c=h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, validate_outbound_headers=False, normalize_outbound_headers=False))
    c.initiate_connection(); s.sendall(c.data_to_send()); paths={}
    try:
      while True:
        d=s.recv(65536)
        if not d: break
        for e in c.receive_data(d):
            if isinstance(e,h2.events.DataReceived):
                c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
            if isinstance(e,h2.events.RequestReceived):
                h=dict(e.headers); p=(h.get(b':path') or h.get(':path')); p=p.decode() if isinstance(p,bytes) else p
                paths[e.stream_id]=p
            if isinstance(e,h2.events.StreamEnded):
                sid=e.stream_id; p=paths.pop(sid,"")
                if "/g.Svc/" in p:
                    c.send_headers(sid,[(":status","200"),("content-type","application/grpc")])
                    c.send_data(sid,b"\x00\x00\x00\x00\x02\x0a\x00")
                    c.send_headers(sid,[("grpc-status","0")],end_stream=True)
                elif "/short" in p:
                    c.send_headers(sid,[(":status","200"),("content-length","10")]); c.send_data(sid,b"AAAAA",end_stream=True)
                elif "/long" in p:
                    c.send_headers(sid,[(":status","200"),("content-length","5")]); c.send_data(sid,b"AAAAABBBBB",end_stream=True)
                elif "/trunc" in p:
                    c.send_headers(sid,[(":status","200"),("content-length","10")]); c.send_data(sid,b"AAAAA"); c.reset_stream(sid,2)
                else:
                    c.send_headers(sid,[(":status","200"),("content-length","2")]); c.send_data(sid,b"ok",end_stream=True)
        s.sendall(c.data_to_send())
    except Exception as ex: print("origin exc", repr(ex), flush=True)
    finally: s.close()
l=socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR,1); l.bind(("127.0.0.1",29603)); l.listen(50)
while True:
    s,_=l.accept(); threading.Thread(target=serve,args=(s,),daemon=True).start()
