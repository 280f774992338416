# origin.py PORT NAME [MODE]: an HTTP/1.1 origin (threads) that reads the request body (content-length or chunked,
# counting its bytes as they arrive, even when the sender stops short) and answers "NAME METHOD PATH BYTES".
# Every request is printed to stdout: "NAME METHOD PATH body=N complete=bool". MODE 'fail': /x* answers 503.
# GET /health answers 200 unless the file /tmp/combo10-NAME.down exists (then 503).
import socket, sys, threading, os
port, name = int(sys.argv[1]), sys.argv[2]; mode = sys.argv[3] if len(sys.argv) > 3 else ''
def readline(f):
    return f.readline(65536)
def handle(c):
    f = c.makefile('rb')
    try:
        while True:
            line = readline(f)
            if not line: return
            method, path, _ = line.decode('latin1').split(' ', 2)
            h = {}
            while True:
                l = readline(f)
                if l in (b'\r\n', b'\n', b''): break
                k, v = l.decode('latin1').split(':', 1); h[k.strip().lower()] = v.strip()
            n = 0; complete = True
            try:
                if 'content-length' in h:
                    left = int(h['content-length'])
                    while left:
                        d = f.read1(min(left, 65536))
                        if not d: complete = False; break
                        n += len(d); left -= len(d)
                elif h.get('transfer-encoding', '').lower() == 'chunked':
                    while True:
                        sz = readline(f)
                        if not sz: complete = False; break
                        sz = int(sz.split(b';')[0], 16)
                        if sz == 0:
                            while readline(f) not in (b'\r\n', b'\n', b''): pass
                            break
                        left = sz
                        while left:
                            d = f.read1(left)
                            if not d: complete = False; break
                            n += len(d); left -= len(d)
                        if not complete: break
                        readline(f)
            except Exception as e:
                complete = False
            print(f'{name} {method} {path} body={n} complete={complete} via={h.get("via")!r} xfcc={h.get("x-forwarded-client-cert")!r} xff={h.get("x-forwarded-for")!r}', flush=True)
            if not complete: return
            if path.startswith('/health'):
                st = 503 if os.path.exists(f'/tmp/combo10-{name}.down') else 200
            elif mode == 'fail' and '/x' in path:
                st = 503
            else:
                st = 200
            body = f'{name} {method} {path} {n}\n'.encode()
            c.sendall(f'HTTP/1.1 {st} X\r\ncontent-length: {len(body)}\r\ncontent-type: text/plain\r\n\r\n'.encode() + body)
    except Exception as e:
        print(f'{name} error {e!r}', flush=True)
    finally:
        c.close()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', port)); s.listen(128)
while True:
    c, _ = s.accept(); threading.Thread(target=handle, args=(c,), daemon=True).start()
