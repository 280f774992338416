# h2multi.py HOST PORT SPEC...: one h2c connection (or TLS with TLS=1), one stream per SPEC "METHOD PATH BODYBYTES
# [grpc] [h:v ...]", all opened at once (bodies sent without content-length, 16 KiB frames); prints per stream: head,
# bytes of body, trailers, reset code; and whether the connection got GOAWAY or EOF. SIBLING streams finish on their own.
import socket, ssl, sys, os, time, h2.connection, h2.events, h2.config, h2.settings
host, port = sys.argv[1], int(sys.argv[2]); specs = sys.argv[3:]
s = socket.create_connection((host, port)); s.settimeout(15)
if os.environ.get('TLS'):
    ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(['h2']); s = ctx.wrap_socket(s, server_hostname='localhost')
c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True)); c.initiate_connection()
c.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 20}); c.increment_flow_control_window(1 << 24)
st = {}
for spec in specs:
    parts = spec.split(' '); m, path, n = parts[0], parts[1], int(parts[2]); extra = parts[3:]
    sid = c.get_next_available_stream_id()
    hdrs = [(':method', m), (':scheme', 'https' if os.environ.get('TLS') else 'http'), (':authority', f'{host}:{port}'), (':path', path)]
    grpc = 'grpc' in extra
    if grpc: hdrs += [('content-type', 'application/grpc'), ('te', 'trailers')]
    for e in extra:
        if ':' in e and e != 'grpc': k, v = e.split(":", 1); hdrs.append((k.lower(), v.replace("%20", " ")))
    body = (b'\x00' + (n - 5).to_bytes(4, 'big') + os.urandom(n - 5)) if grpc and n else os.urandom(n)
    c.send_headers(sid, hdrs, end_stream=(n == 0))
    st[sid] = dict(spec=spec, body=body, sent=0, got=0, t0=time.time())
s.sendall(c.data_to_send())
open_ = set(st); conn = {}
while open_:
    for sid in list(open_):
        d = st[sid]
        while d['sent'] < len(d['body']) and 'reset' not in d:
            w = min(c.local_flow_control_window(sid), c.max_outbound_frame_size, len(d['body']) - d['sent'])
            if w <= 0: break
            try: c.send_data(sid, d['body'][d['sent']:d['sent'] + w], end_stream=d['sent'] + w == len(d['body']))
            except Exception as ex: d['senderr'] = type(ex).__name__; d['sent'] = len(d['body']); break
            d['sent'] += w
    s.sendall(c.data_to_send())
    try: data = s.recv(65536)
    except Exception as ex: conn['recv'] = repr(ex); break
    if not data: conn['eof'] = True; break
    for e in c.receive_data(data):
        d = st.get(getattr(e, 'stream_id', None))
        if isinstance(e, h2.events.ResponseReceived): d['head'] = {k.decode(): v.decode() for k, v in e.headers if k in (b':status', b'grpc-status', b'grpc-message', b'www-authenticate', b'content-type', b'connection')}
        elif isinstance(e, h2.events.DataReceived): d['got'] += len(e.data); c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
        elif isinstance(e, h2.events.TrailersReceived): d['trailers'] = {k.decode(): v.decode() for k, v in e.headers}
        elif isinstance(e, h2.events.StreamReset): d['reset'] = e.error_code; d['t'] = round(time.time() - d['t0'], 2); open_.discard(e.stream_id)
        elif isinstance(e, h2.events.StreamEnded): d['t'] = round(time.time() - d['t0'], 2); open_.discard(e.stream_id)
        elif isinstance(e, h2.events.ConnectionTerminated): conn['goaway'] = (e.error_code, e.last_stream_id)
    s.sendall(c.data_to_send())
for sid, d in st.items():
    print(sid, d['spec'], 'sent', d['sent'], {k: d.get(k) for k in ('head', 'got', 'trailers', 'reset', 'senderr', 't') if d.get(k) is not None})
print('connection', conn or 'open')
