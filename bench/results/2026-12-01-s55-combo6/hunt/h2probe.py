import socket, sys, h2.connection, h2.config, h2.events, ssl
def run(headers, body=None, port=29810, tls=False, end=True):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if tls:
        ctx = ssl.create_default_context(); ctx.check_hostname=False; ctx.verify_mode=ssl.CERT_NONE; ctx.set_alpn_protocols(["h2"])
        s = ctx.wrap_socket(s, server_hostname="localhost")
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8", validate_outbound_headers=False, normalize_outbound_headers=False, validate_inbound_headers=False))
    c.initiate_connection(); s.sendall(c.data_to_send())
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, headers, end_stream=(body is None and end))
    if body is not None:
        c.send_data(sid, body, end_stream=end)
    s.sendall(c.data_to_send())
    out=[]
    try:
      while True:
        d = s.recv(65536)
        if not d: out.append("EOF"); break
        for e in c.receive_data(d):
            if isinstance(e,(h2.events.ResponseReceived,h2.events.TrailersReceived)): out.append(("H", e.headers))
            elif isinstance(e,h2.events.DataReceived): out.append(("D", e.data[:200])); c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
            elif isinstance(e,h2.events.StreamReset): out.append(("RST", e.error_code)); raise StopIteration
            elif isinstance(e,h2.events.StreamEnded): out.append("END"); raise StopIteration
            elif isinstance(e,h2.events.ConnectionTerminated): out.append(("GOAWAY", e.error_code, e.additional_data)); raise StopIteration
            elif isinstance(e,h2.events.RemoteSettingsChanged): out.append(("SETTINGS", {k:v.new_value for k,v in e.changed_settings.items()}))
        s.sendall(c.data_to_send())
    except StopIteration: pass
    except Exception as ex: out.append(("EXC", repr(ex)))
    for o in out: print(o)
port=int(sys.argv[1]); tls=len(sys.argv)>2 and sys.argv[2]=="tls"
print("--- CONNECT plain")
run([(":method","CONNECT"),(":authority","127.0.0.1:29801")], port=port, tls=tls, end=False)
print("--- extended CONNECT websocket")
run([(":method","CONNECT"),(":protocol","websocket"),(":scheme","http"),(":path","/ws"),(":authority","127.0.0.1"),("sec-websocket-version","13")], port=port, tls=tls, end=False)
print("--- GET with upgrade: websocket (h2 forbids connection-specific)")
run([(":method","GET"),(":scheme","http"),(":path","/ws"),(":authority","127.0.0.1"),("upgrade","websocket")], port=port, tls=tls)
