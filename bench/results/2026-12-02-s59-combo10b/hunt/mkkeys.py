# mkkeys.py: RSA keys k1, k2 (PEM + public JWK) in /tmp/combo10b-certs
import json, base64
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
b = lambda n: base64.urlsafe_b64encode(n.to_bytes((n.bit_length() + 7) // 8, 'big')).rstrip(b'=').decode()
for kid in ('k1', 'k2'):
    k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    open(f'/tmp/combo10b-certs/{kid}.pem', 'wb').write(k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    n = k.public_key().public_numbers()
    json.dump({'kty': 'RSA', 'kid': kid, 'use': 'sig', 'alg': 'RS256', 'n': b(n.n), 'e': b(n.e)}, open(f'/tmp/combo10b-certs/{kid}.jwk', 'w'))
