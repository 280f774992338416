import http.server, sys
n = {"count": 0}
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        n["count"] += 1
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        status = 503 if n["count"] % 2 == 1 else 200
        out = f"attempt {n['count']} got {len(body)} bytes\n".encode()
        self.send_response(status); self.send_header("Content-Length", str(len(out))); self.end_headers(); self.wfile.write(out)
    def log_message(self, *a): sys.stderr.write("origin: " + (a[0] % a[1:]) + "\n")
http.server.ThreadingHTTPServer(("127.0.0.1", 29903), H).serve_forever()
