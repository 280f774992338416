exec(open('./h2probe.py').read().split('port=int')[0])
import time
for grpc in (False, True):
    s = socket.create_connection(("127.0.0.1", 29840), timeout=5)
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    c.initiate_connection(); c.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1<<20}); s.sendall(c.data_to_send())
    sid = c.get_next_available_stream_id()
    h=[(":method","POST"),(":scheme","http"),(":path","/rr/echo"),(":authority","localhost")]
    if grpc: h=[(":method","POST"),(":scheme","http"),(":path","/rr/x.S/M"),(":authority","localhost"),("content-type","application/grpc"),("te","trailers")]
    c.send_headers(sid, h)
    c.send_data(sid, b"x"*16000); s.sendall(c.data_to_send()); time.sleep(0.3)
    c.reset_stream(sid, 8); s.sendall(c.data_to_send()); time.sleep(0.3)
    sid2=c.get_next_available_stream_id(); c.send_headers(sid2, [(":method","GET"),(":scheme","http"),(":path","/rr/hello"),(":authority","localhost")], end_stream=True); s.sendall(c.data_to_send())
    out=[]; t0=time.time()
    while time.time()-t0<3:
        try: d=s.recv(65536)
        except socket.timeout: break
        if not d: out.append("EOF"); break
        for e in c.receive_data(d):
            if getattr(e,'stream_id',None) in (sid,sid2) or isinstance(e,h2.events.ConnectionTerminated): out.append((type(e).__name__, getattr(e,'stream_id',None), getattr(e,'headers',None) or getattr(e,'data',b'')[:40] or getattr(e,'error_code',None)))
        s.sendall(c.data_to_send())
        if any(o[0]=="StreamEnded" and o[1]==sid2 for o in out if isinstance(o,tuple)): break
    print("grpc" if grpc else "plain", out)
