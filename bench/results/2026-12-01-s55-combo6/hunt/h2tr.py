import socket, sys, h2.connection, h2.config, h2.events
port=int(sys.argv[1]); path=sys.argv[2]
s=socket.create_connection(("127.0.0.1",port),timeout=5)
c=h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
c.initiate_connection(); sid=c.get_next_available_stream_id()
c.send_headers(sid,[(":method","GET"),(":scheme","http"),(":path",path),(":authority","localhost"),("te","trailers")],end_stream=True); s.sendall(c.data_to_send())
out=[]; done=False
while not done:
    d=s.recv(65536)
    if not d: out.append("EOF"); break
    for e in c.receive_data(d):
        if isinstance(e,h2.events.ResponseReceived): out.append(("HEAD",[h for h in e.headers if h[0] in (":status","content-length","x-set","content-type","trailer")]))
        elif isinstance(e,h2.events.TrailersReceived): out.append(("TRAILERS",e.headers))
        elif isinstance(e,h2.events.DataReceived): out.append(("DATA",e.data)); c.acknowledge_received_data(e.flow_controlled_length,sid)
        elif isinstance(e,(h2.events.StreamEnded,h2.events.StreamReset)): out.append(type(e).__name__); done=True
    s.sendall(c.data_to_send())
print(path, out)
