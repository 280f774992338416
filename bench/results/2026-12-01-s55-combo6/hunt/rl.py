# usage: rl.py port path n interval_s [grpc]  -- n requests over ONE h2c connection, one stream each; prints a summary
import socket, sys, time, struct, collections, h2.connection, h2.config, h2.events
port=int(sys.argv[1]); path=sys.argv[2]; n=int(sys.argv[3]); gap=float(sys.argv[4]); grpc=len(sys.argv)>5
s = socket.create_connection(("127.0.0.1", port), timeout=5)
c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
c.initiate_connection(); s.sendall(c.data_to_send())
res=collections.Counter(); extra=set()
for i in range(n):
    sid=c.get_next_available_stream_id()
    if grpc:
        msg=b"\x0a\x03abc"
        c.send_headers(sid,[(":method","POST"),(":scheme","http"),(":path",path),(":authority","localhost"),("content-type","application/grpc"),("te","trailers")])
        c.send_data(sid,b"\x00"+struct.pack(">I",len(msg))+msg,end_stream=True)
    else:
        c.send_headers(sid,[(":method","GET"),(":scheme","http"),(":path",path),(":authority","localhost")],end_stream=True)
    s.sendall(c.data_to_send())
    st=None; gs=None; done=False
    while not done:
        d=s.recv(65536)
        if not d: res["EOF"]+=1; done=True; break
        for e in c.receive_data(d):
            if isinstance(e,(h2.events.ResponseReceived,h2.events.TrailersReceived)) and e.stream_id==sid:
                h=dict(e.headers)
                if ":status" in h: st=h[":status"]
                if "grpc-status" in h: gs=h["grpc-status"]; extra.add((h.get("grpc-status"),h.get("grpc-message"),h.get("retry-after")))
                if "x-ratelimit-remaining" in h: pass
            elif isinstance(e,h2.events.DataReceived): c.acknowledge_received_data(e.flow_controlled_length,e.stream_id)
            elif isinstance(e,(h2.events.StreamEnded,h2.events.StreamReset)) and e.stream_id==sid: done=True
            elif isinstance(e,h2.events.ConnectionTerminated): res["GOAWAY"]+=1; done=True
        s.sendall(c.data_to_send())
    res[(st,gs)]+=1
    time.sleep(gap)
print(time.strftime("%H:%M:%S"), path, dict(res), sorted(extra, key=str))
