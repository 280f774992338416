# rstok.py KID SUB: an RS256 token signed with /tmp/combo10b-certs/KID.pem (the key whose JWK is KID.jwk)
import sys, json, time, base64
from cryptography.hazmat.primitives import serialization, hashes
from cryptography.hazmat.primitives.asymmetric import padding
b = lambda x: base64.urlsafe_b64encode(x).rstrip(b'=').decode()
kid, sub = sys.argv[1], sys.argv[2]
k = serialization.load_pem_private_key(open(f'/tmp/combo10b-certs/{kid}.pem', 'rb').read(), None)
h = b(json.dumps({'alg': 'RS256', 'kid': kid, 'typ': 'JWT'}).encode())
p = b(json.dumps({'sub': sub, 'exp': int(time.time()) + 600}).encode())
print(f'{h}.{p}.' + b(k.sign(f'{h}.{p}'.encode(), padding.PKCS1v15(), hashes.SHA256())))
