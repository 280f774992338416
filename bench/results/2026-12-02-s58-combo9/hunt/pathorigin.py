# An HTTP/1.1 origin on argv[1] that answers 200 with the request line it received (what the origin sees), and
# drains any body. Also logs it to stdout.
import socketserver, sys
class H(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            line = self.rfile.readline()
            if not line: return
            hdrs = {}
            while True:
                h = self.rfile.readline()
                if h in (b'\r\n', b'\n', b''): break
                k, _, v = h.decode('latin-1').partition(':'); hdrs[k.strip().lower()] = v.strip()
            n = int(hdrs.get('content-length', '0'))
            if n: self.rfile.read(n)
            elif hdrs.get('transfer-encoding', '').lower() == 'chunked':
                while True:
                    sz = int(self.rfile.readline().split(b';')[0], 16)
                    self.rfile.read(sz + 2)
                    if sz == 0: break
            body = line.rstrip(b'\r\n') + b'\n'
            print(body.decode('latin-1').rstrip(), flush=True)
            self.wfile.write(b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: text/plain\r\n\r\n' % len(body) + body)
socketserver.ThreadingTCPServer.allow_reuse_address = True
socketserver.ThreadingTCPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
