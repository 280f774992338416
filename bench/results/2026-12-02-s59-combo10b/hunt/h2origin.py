# h2origin.py PORT NAME [fail]: an h2c (prior knowledge) origin. Answers 200 "NAME PATH"; with 'fail', /x* answers
# 503; /health answers 200 unless /tmp/combo10b-NAME.down exists (then 503). Prints each request.
import socket, threading, sys, os, h2.connection, h2.config, h2.events
port, name = int(sys.argv[1]), sys.argv[2]; fail = len(sys.argv) > 3 and sys.argv[3] == 'fail'
def serve(s):
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    c.initiate_connection(); s.sendall(c.data_to_send()); paths = {}
    try:
        while True:
            d = s.recv(65536)
            if not d: break
            for e in c.receive_data(d):
                if isinstance(e, h2.events.DataReceived):
                    c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                if isinstance(e, h2.events.RequestReceived):
                    h = {k.decode() if isinstance(k, bytes) else k: (v.decode() if isinstance(v, bytes) else v) for k, v in e.headers}
                    paths[e.stream_id] = h.get(':path', '')
                    print(name, h.get(':method'), h.get(':path'), 'via=' + h.get('via', ''), flush=True)
                if isinstance(e, h2.events.StreamEnded):
                    sid = e.stream_id; p = paths.pop(sid, '')
                    st = 200
                    if fail and p.startswith('/x'): st = 503
                    if p.startswith('/health') and os.path.exists(f'/tmp/combo10b-{name}.down'): st = 503
                    body = f'{name} {p}\n'.encode()
                    c.send_headers(sid, [(':status', str(st)), ('content-length', str(len(body)))])
                    c.send_data(sid, body, end_stream=True)
            s.sendall(c.data_to_send())
    except Exception as ex:
        print(name, 'conn error', ex, flush=True)
    finally:
        s.close()
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); ls.bind(('127.0.0.1', port)); ls.listen(64)
while True:
    s, _ = ls.accept(); threading.Thread(target=serve, args=(s,), daemon=True).start()
