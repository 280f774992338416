# gRPC-shaped client-streaming call over h2c (raw frames, hyper-h2) to argv[1]:argv[2], path argv[3]; body argv[4]
# bytes as one length-prefixed message sent in 16 KiB DATA frames, END_STREAM on the last; prints status and trailers.
import socket, sys, h2.connection, h2.events, h2.config, os, time
DRIP=float(os.environ.get('DRIP','0'))  # seconds between DATA frames (a slow client stream)
host,port,path,size=sys.argv[1],int(sys.argv[2]),sys.argv[3],int(sys.argv[4])
s=socket.create_connection((host,port)); s.settimeout(20)
c=h2.connection.H2Connection(h2.config.H2Configuration(client_side=True)); c.initiate_connection()
c.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1<<20}); c.increment_flow_control_window(1<<24)
sid=c.get_next_available_stream_id()
c.send_headers(sid,[(":method","POST"),(":scheme","http"),(":authority",f"{host}:{port}"),(":path",path),("content-type","application/grpc"),("te","trailers")])
s.sendall(c.data_to_send())
body=b'\x00'+(size-5).to_bytes(4,'big')+os.urandom(size-5); sent=0; out={}; data=b''; done=False
while not done:
    while sent<len(body) and c.local_flow_control_window(sid)>0:
        n=min(16384,len(body)-sent,c.local_flow_control_window(sid),c.max_outbound_frame_size)
        try: c.send_data(sid,body[sent:sent+n],end_stream=sent+n==len(body))
        except Exception as ex: out['send']=repr(ex); sent=len(body); break
        sent+=n
        if DRIP: s.sendall(c.data_to_send()); time.sleep(DRIP)
    s.sendall(c.data_to_send())
    d=s.recv(65536)
    if not d: out['eof']=True; break
    for e in c.receive_data(d):
        if isinstance(e,h2.events.ResponseReceived): out['head']=dict((k.decode(),v.decode()) for k,v in e.headers)
        if isinstance(e,h2.events.DataReceived): data+=e.data; c.acknowledge_received_data(e.flow_controlled_length,sid)
        if isinstance(e,h2.events.TrailersReceived): out['trailers']=dict((k.decode(),v.decode()) for k,v in e.headers)
        if isinstance(e,h2.events.StreamReset): out['reset']=e.error_code; done=True
        if isinstance(e,h2.events.StreamEnded): done=True
    s.sendall(c.data_to_send())
print(path, size, "sent", sent, out, data[5:][:60])
