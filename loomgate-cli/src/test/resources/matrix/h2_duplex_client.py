"""A lockstep full-duplex HTTP/2 client for the traffic matrix (issue 34), on hyper-h2 (Debian: python3-h2).

The JDK HttpClient hands the response to its body handler only once the request body was all sent, and curl reads
its standard input with a blocking read in its one event loop: neither can send a piece, wait for its echo, then send
the next. This does, on one stream: HEADERS (no content-length), then for each piece DATA, then read until that many
bytes came back, then the next piece; END_STREAM after the last; then read to the end of the response.

Flow control is honoured both ways: received DATA is acknowledged at once (WINDOW_UPDATE on the stream and the
connection), and a piece larger than the send window goes out as the peer's WINDOW_UPDATEs open it.

The request body is read whole from standard input before connecting. The result goes to standard output as
key=value lines (status, bytes and SHA-256 each way, whether the response ended cleanly, the error if any):
    status=200
    sent=262144
    sent_sha256=...
    received=262144
    sha256=...
    complete=true
    error=
Exit status 0 when the exchange ran to the end (whatever the status), 1 when it failed (the lines still say how far).
"""

import argparse
import hashlib
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions


class Failed(Exception):
    """The exchange cannot go on: the message says why."""


class Exchange:
    def __init__(self, args, body):
        self.args = args
        self.body = body
        self.deadline = time.monotonic() + args.deadline
        self.status = 0
        self.sent = 0
        self.sent_sha = hashlib.sha256()
        self.received = 0
        self.received_sha = hashlib.sha256()
        self.ended = False
        self.sock = None
        self.conn = None
        self.stream_id = None

    def run(self):
        self.sock = self.connect()
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.flush()
        self.stream_id = self.conn.get_next_available_stream_id()
        authority = "%s:%d" % (self.args.host, self.args.port)
        self.conn.send_headers(self.stream_id, [
            (":method", self.args.method),
            (":scheme", "https" if self.args.tls else "http"),
            (":authority", authority),
            (":path", self.args.path),
            ("x-matrix-key", self.args.key),
        ])
        self.flush()
        piece = self.args.piece
        for off in range(0, len(self.body), piece):
            chunk = self.body[off:off + piece]
            self.send(chunk)
            # lockstep: the next piece only once this one came back whole
            self.read_until(lambda: self.received >= off + len(chunk),
                            "the echo of bytes %d..%d did not come back" % (off, off + len(chunk)))
        self.conn.end_stream(self.stream_id)
        self.flush()
        self.read_until(lambda: self.ended, "the response did not end")
        try:
            self.conn.close_connection()
            self.flush()
        except (OSError, h2.exceptions.ProtocolError):
            pass  # the response is whole; a connection the gateway already closed changes nothing

    def connect(self):
        raw = socket.create_connection((self.args.host, self.args.port), timeout=self.args.io_timeout)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if not self.args.tls:
            return raw  # h2c with prior knowledge: the preface goes first
        ctx = ssl.create_default_context(cafile=self.args.cacert) if self.args.cacert \
            else ssl._create_unverified_context()
        if not self.args.cacert:
            ctx.check_hostname = False
        ctx.set_alpn_protocols(["h2"])
        tls = ctx.wrap_socket(raw, server_hostname=self.args.server_name)
        if tls.selected_alpn_protocol() != "h2":
            raise Failed("the gateway chose ALPN %r, not h2" % tls.selected_alpn_protocol())
        return tls

    def send(self, data):
        """Sends data on the stream as the send window allows, reading (and so taking WINDOW_UPDATEs) while shut."""
        view = memoryview(data)
        while view:
            window = self.conn.local_flow_control_window(self.stream_id)
            if window <= 0:
                self.read_once("the send window stayed shut (no WINDOW_UPDATE)")
                continue
            n = min(window, self.conn.max_outbound_frame_size, len(view))
            self.conn.send_data(self.stream_id, view[:n].tobytes())
            self.flush()
            self.sent_sha.update(view[:n])
            self.sent += n
            view = view[n:]

    def read_until(self, done, why):
        while not done():
            if self.ended:
                raise Failed("%s: the response ended after %d bytes" % (why, self.received))
            self.read_once(why)

    def read_once(self, why):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Failed("%s: the exchange's deadline passed" % why)
        self.sock.settimeout(min(self.args.io_timeout, left))
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            raise Failed("%s: nothing came for %ss" % (why, self.args.io_timeout))
        if not data:
            raise Failed("%s: the gateway closed the connection" % why)
        for event in self.conn.receive_data(data):
            self.on(event)
        self.flush()

    def on(self, event):
        if isinstance(event, h2.events.ResponseReceived) and event.stream_id == self.stream_id:
            for name, value in event.headers:
                if name == ":status":
                    self.status = int(value)
        elif isinstance(event, h2.events.DataReceived):
            if event.stream_id == self.stream_id:
                self.received += len(event.data)
                self.received_sha.update(event.data)
            # acknowledge at once: the window reopens as the bytes are consumed (a stream already ended only has the
            # connection's window left to give back)
            if event.flow_controlled_length:
                try:
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                except h2.exceptions.StreamClosedError:
                    self.conn.increment_flow_control_window(event.flow_controlled_length)
        elif isinstance(event, h2.events.StreamEnded) and event.stream_id == self.stream_id:
            self.ended = True
        elif isinstance(event, h2.events.StreamReset) and event.stream_id == self.stream_id:
            if not self.ended:
                raise Failed("the gateway reset the stream (error code %s) after %d bytes"
                             % (event.error_code, self.received))
        elif isinstance(event, h2.events.ConnectionTerminated):
            if not self.ended:
                raise Failed("the gateway sent GOAWAY (error code %s, %r) after %d bytes"
                             % (event.error_code, event.additional_data, self.received))

    def flush(self):
        out = self.conn.data_to_send()
        if out:
            self.sock.sendall(out)

    def report(self, error):
        lines = [
            "status=%d" % self.status,
            "sent=%d" % self.sent,
            "sent_sha256=%s" % self.sent_sha.hexdigest(),
            "received=%d" % self.received,
            "sha256=%s" % self.received_sha.hexdigest(),
            "complete=%s" % ("true" if self.ended and error is None else "false"),
            "error=%s" % ("" if error is None else error.replace("\n", " ")),
        ]
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--tls", action="store_true", help="TLS with ALPN h2 (else h2c with prior knowledge)")
    p.add_argument("--cacert", help="verify the gateway's certificate against this CA file (else no verification)")
    p.add_argument("--server-name", default="localhost", help="SNI and the name the certificate must hold")
    p.add_argument("--method", default="POST")
    p.add_argument("--path", required=True)
    p.add_argument("--key", default="", help="the X-Matrix-Key header")
    p.add_argument("--piece", type=int, default=16384, help="bytes per lockstep piece")
    p.add_argument("--io-timeout", type=float, default=15.0, help="longest wait for any one read")
    p.add_argument("--deadline", type=float, default=60.0, help="longest the whole exchange may take")
    args = p.parse_args()
    body = sys.stdin.buffer.read()
    x = Exchange(args, body)
    error = None
    try:
        x.run()
    except Failed as e:
        error = str(e)
    except (OSError, ssl.SSLError, h2.exceptions.ProtocolError) as e:
        error = "%s: %s" % (type(e).__name__, e)
    finally:
        if x.sock is not None:
            x.sock.close()
    x.report(error)
    return 0 if error is None else 1


if __name__ == "__main__":
    sys.exit(main())
