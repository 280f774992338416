# A client that asks for a large answer, reads `first` bytes of it, then stops reading for `hold` seconds; then reads
# what is left to see whether the gateway cut it (EOF/reset before the whole body) and when.
# usage: slowread.py host port tls(0|1) h1|h2 path hold [first]
import socket, ssl, sys, time, h2.connection, h2.config, h2.events, h2.settings
host,port,tls,proto,path,hold=sys.argv[1],int(sys.argv[2]),sys.argv[3]=='1',sys.argv[4],sys.argv[5],float(sys.argv[6])
first=int(sys.argv[7]) if len(sys.argv)>7 else 100000
s=socket.create_connection((host,port)); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
if tls:
    ctx=ssl.create_default_context(); ctx.check_hostname=False; ctx.verify_mode=ssl.CERT_NONE
    ctx.set_alpn_protocols(['h2'] if proto=='h2' else ['http/1.1']); s=ctx.wrap_socket(s,server_hostname='localhost')
t0=time.time(); got=0; ended=None
if proto=='h1':
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    while got<first:
        d=s.recv(65536)
        if not d: break
        got+=len(d)
    print(f"{time.time()-t0:.2f}s read {got} then stop", flush=True); time.sleep(hold)
    s.settimeout(5)
    try:
        while True:
            d=s.recv(1<<20)
            if not d: ended='EOF'; break
            got+=len(d)
    except socket.timeout: ended='still open (5 s without a byte)'
    except Exception as ex: ended=repr(ex)
else:
    c=h2.connection.H2Connection(h2.config.H2Configuration(client_side=True)); c.initiate_connection()
    s.sendall(c.data_to_send()); sid=1
    c.send_headers(sid,[(":method","GET"),(":scheme","https" if tls else "http"),(":authority","x"),(":path",path)],end_stream=True)
    s.sendall(c.data_to_send())
    # read `first` bytes, crediting nothing: the stream window (65,535) closes and the gateway must stop
    s.settimeout(3)
    try:
        while True:
            d=s.recv(65536)
            if not d: ended='EOF'; break
            for e in c.receive_data(d):
                if isinstance(e,h2.events.DataReceived): got+=len(e.data)
                if isinstance(e,(h2.events.StreamReset,h2.events.ConnectionTerminated)): ended=repr(e)
            s.sendall(c.data_to_send())
    except socket.timeout: pass
    print(f"{time.time()-t0:.2f}s read {got} (window closed) then hold", flush=True); time.sleep(hold)
    s.settimeout(5)
    try:
        c.increment_flow_control_window(1<<30); c.increment_flow_control_window(1<<30,sid); s.sendall(c.data_to_send())
        while ended is None:
            d=s.recv(1<<20)
            if not d: ended='EOF'; break
            for e in c.receive_data(d):
                if isinstance(e,h2.events.DataReceived):
                    got+=len(e.data); c.acknowledge_received_data(e.flow_controlled_length,sid)
                if isinstance(e,h2.events.StreamEnded): ended='whole'
                if isinstance(e,(h2.events.StreamReset,h2.events.ConnectionTerminated)): ended=repr(e)
            s.sendall(c.data_to_send())
    except socket.timeout: ended='still open (5 s without a byte)'
    except Exception as ex: ended=repr(ex)
print(f"{time.time()-t0:.2f}s end: {ended}, {got} bytes", flush=True)
