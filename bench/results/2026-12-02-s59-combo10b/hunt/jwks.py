# jwks.py PORT CERT KEY: an HTTPS server for /jwks.json. What it serves is read per request from /tmp/combo10b-jwks.mode:
# 'k1' keys k1, 'k2' keys k2, 'both' k1+k2, '500' answers 500, 'bad' a broken document ('{"keys": [ {"kty"'),
# 'empty' {"keys": []}. Prints each request.
import http.server, ssl, sys, json, os
here = os.path.dirname(os.path.abspath(__file__))
def keys(names):
    return json.dumps({'keys': [json.load(open(f'/tmp/combo10b-certs/{n}.jwk')) for n in names]})
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        mode = open('/tmp/combo10b-jwks.mode').read().strip()
        print('jwks GET', self.path, mode, flush=True)
        if mode == '500': st, body = 500, b'oops'
        elif mode == 'bad': st, body = 200, b'{"keys": [ {"kty"'
        elif mode == 'empty': st, body = 200, b'{"keys": []}'
        else: st, body = 200, keys({'k1': ['k1'], 'k2': ['k2'], 'both': ['k1', 'k2']}[mode]).encode()
        self.send_response(st); self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(sys.argv[2], sys.argv[3])
s.socket = ctx.wrap_socket(s.socket, server_side=True)
s.serve_forever()
