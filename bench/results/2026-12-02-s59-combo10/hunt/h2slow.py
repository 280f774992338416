# h2slow.py PORT PATH N SIZE [TLS]: one h2c (or h2 over TLS) POST whose body goes as N DATA frames of SIZE bytes,
# 0.3 s apart, no content-length; prints the answer's status, body bytes and any reset
import socket, ssl, sys, time, h2.connection, h2.events, h2.config
port, path, n, size = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
s = socket.create_connection(('127.0.0.1', port)); s.settimeout(10)
if len(sys.argv) > 5:
    ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(['h2']); s = ctx.wrap_socket(s, server_hostname='localhost')
c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True)); c.initiate_connection()
c.send_headers(1, [(':method', 'POST'), (':scheme', 'http'), (':authority', 'x'), (':path', path)])
s.sendall(c.data_to_send()); out = {}
s.setblocking(False)
def pump():
    try:
        data = s.recv(65536)
    except (BlockingIOError, ssl.SSLWantReadError): return
    for e in c.receive_data(data):
        if isinstance(e, h2.events.ResponseReceived): out['status'] = dict(e.headers)[b':status'].decode()
        elif isinstance(e, h2.events.StreamReset): out['reset'] = e.error_code
        elif isinstance(e, h2.events.StreamEnded): out['ended'] = True
    s.sendall(c.data_to_send())
for i in range(n):
    if 'reset' in out or 'ended' in out: break
    c.send_data(1, b'a' * size, end_stream=i == n - 1); s.sendall(c.data_to_send()); time.sleep(0.3); pump()
s.setblocking(True)
t = time.time()
while 'ended' not in out and 'reset' not in out and time.time() - t < 5:
    s.settimeout(5); data = s.recv(65536)
    if not data: break
    for e in c.receive_data(data):
        if isinstance(e, h2.events.ResponseReceived): out['status'] = dict(e.headers)[b':status'].decode()
        elif isinstance(e, h2.events.StreamReset): out['reset'] = e.error_code
        elif isinstance(e, h2.events.StreamEnded): out['ended'] = True
print(out)
