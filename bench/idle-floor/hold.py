"""Opens N connections to 127.0.0.1:PORT (TLS 1.3 with ALPN h2 when --tls; a finished handshake each), prints READY,
(one application record echoed each way with TLS), holds them until a line arrives on stdin, checks each is still open, and closes them."""
import argparse
import socket
import ssl
import sys

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("-n", type=int, default=5000)
parser.add_argument("--tls", action="store_true")
args = parser.parse_args()

context = None
if args.tls:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.set_alpn_protocols(["h2"])

held = []
for i in range(args.n):
    s = socket.create_connection(("127.0.0.1", args.port))
    if context is not None:
        s = context.wrap_socket(s)
        if s.selected_alpn_protocol() != "h2":
            sys.exit(f"connection {i}: ALPN chose {s.selected_alpn_protocol()!r}, not h2")
        s.sendall(b"x")  # one record each way: the server echoes it
        if s.recv(1) != b"x":
            sys.exit(f"connection {i}: no echo")
    held.append(s)
print(f"READY opened={len(held)} cipher={held[0].cipher()[0] if context else 'none'}", flush=True)
sys.stdin.readline()
alive = 0
for s in held:
    s.setblocking(False)
    try:
        alive += 1 if s.recv(1) else 0  # b"" would be the server's close
    except (BlockingIOError, ssl.SSLWantReadError):
        alive += 1  # nothing to read and not closed: still held
    except OSError:
        pass
    s.close()
print(f"ALIVE {alive}", flush=True)
