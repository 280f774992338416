import ssl, sys, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        b = b"ok\n"
        self.send_response(200); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def log_message(self, *a): pass
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain("origin.pem", "origin.key"); ctx.set_alpn_protocols(["http/1.1"])
servers = []
for port in map(int, sys.argv[1:]):
    s = ThreadingHTTPServer(("127.0.0.1", port), H); s.socket = ctx.wrap_socket(s.socket, server_side=True)
    threading.Thread(target=s.serve_forever, daemon=True).start()
threading.Event().wait()
