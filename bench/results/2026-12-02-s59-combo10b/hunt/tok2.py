# tok.py SCOPE [EXP_SECONDS]: an HS256 token with the sec.yaml secret
import hmac, hashlib, base64, json, sys, time
b = lambda x: base64.urlsafe_b64encode(x).rstrip(b'=').decode()
h = b(json.dumps({'alg': 'HS256', 'typ': 'JWT'}).encode())
p = b(json.dumps({'sub': sys.argv[3] if len(sys.argv) > 3 else 'alice', 'scope': sys.argv[1], 'exp': int(time.time()) + int(sys.argv[2] if len(sys.argv) > 2 else 600)}).encode())
sig = b(hmac.new(b'0123456789abcdef0123456789abcdef', f'{h}.{p}'.encode(), hashlib.sha256).digest())
print(f'{h}.{p}.{sig}')
