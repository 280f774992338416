# slow.py PORT: an HTTP/1.1 origin (threads). Reads the request body (content-length or chunked) and prints
# "METHOD PATH body=N complete=bool"; /slow* answers after 30 s, everything else at once ("ok METHOD PATH N").
import socket, sys, threading, time
port = int(sys.argv[1])
def handle(c):
    f = c.makefile('rb')
    try:
        while True:
            line = f.readline(65536)
            if not line: return
            method, path, _ = line.decode('latin1').split(' ', 2)
            h = {}
            while True:
                l = f.readline(65536)
                if l in (b'\r\n', b'\n', b''): break
                k, v = l.decode('latin1').split(':', 1); h[k.strip().lower()] = v.strip()
            n = 0; complete = True
            if 'content-length' in h:
                left = int(h['content-length'])
                while left:
                    d = f.read1(min(left, 65536))
                    if not d: complete = False; break
                    n += len(d); left -= len(d)
            elif h.get('transfer-encoding', '').lower() == 'chunked':
                while True:
                    sz = f.readline(65536)
                    if not sz: complete = False; break
                    sz = int(sz.split(b';')[0], 16)
                    if sz == 0:
                        while f.readline(65536) not in (b'\r\n', b'\n', b''): pass
                        break
                    left = sz
                    while left:
                        d = f.read1(left)
                        if not d: complete = False; break
                        n += len(d); left -= len(d)
                    if not complete: break
                    f.readline(65536)
            print(f'{method} {path} body={n} complete={complete}', flush=True)
            if not complete: return
            if path.startswith('/slow'): time.sleep(30)
            body = f'ok {method} {path} {n}\n'.encode()
            c.sendall(f'HTTP/1.1 200 OK\r\ncontent-length: {len(body)}\r\n\r\n'.encode() + body)
    except Exception as e:
        print(f'error {e!r}', flush=True)
    finally:
        c.close()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', port)); s.listen(128)
while True:
    c, _ = s.accept(); threading.Thread(target=handle, args=(c,), daemon=True).start()
