import socket, struct, time, sys
def frame(t, flags, sid, payload=b''):
    return struct.pack('>I', len(payload))[1:] + bytes([t, flags]) + struct.pack('>I', sid) + payload
def lit(name, value):  # literal header field without indexing, new name, no Huffman
    return b'\x00' + bytes([len(name)]) + name + bytes([len(value)]) + value
def block(method, path):
    return lit(b':method', method) + lit(b':scheme', b'http') + lit(b':path', path) + lit(b':authority', b'h')
def settings(**kv):
    ids = {'INITIAL_WINDOW_SIZE': 4, 'MAX_FRAME_SIZE': 5, 'HEADER_TABLE_SIZE': 1}
    return frame(4, 0, 0, b''.join(struct.pack('>HI', ids[k], v) for k, v in kv.items()))
def read_frames(s, secs):
    s.settimeout(secs); buf = b''; out = []
    end = time.time() + secs
    try:
        while time.time() < end:
            d = s.recv(65536)
            if not d: out.append('EOF'); break
            buf += d
    except socket.timeout: pass
    except ConnectionResetError: out.append('RST')
    i = 0
    while i + 9 <= len(buf):
        ln = int.from_bytes(buf[i:i+3], 'big'); t = buf[i+3]; fl = buf[i+4]; sid = int.from_bytes(buf[i+5:i+9], 'big') & 0x7fffffff
        p = buf[i+9:i+9+ln]
        desc = {0:'DATA',1:'HEADERS',3:'RST_STREAM',4:'SETTINGS',6:'PING',7:'GOAWAY',8:'WINDOW_UPDATE'}.get(t, str(t))
        if t == 7: desc += ' code=%d %r' % (int.from_bytes(p[4:8], 'big'), p[8:])
        if t == 3: desc += ' code=%d' % int.from_bytes(p[:4], 'big')
        out.insert(len(out) - (1 if out and out[-1] in ('EOF','RST') else 0), '%s(sid=%d,len=%d,flags=%d)' % (desc, sid, ln, fl))
        i += 9 + ln
    return out
PREFACE = b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'
def conn():
    s = socket.create_connection(('127.0.0.1', int(sys.argv[1]))); s.sendall(PREFACE + settings()); return s
case = sys.argv[2]
s = conn()
if case == 'window-overflow-by-settings':
    # POST left open (no END_STREAM): stream 1 open; its send window pushed to 2^31-1, then INITIAL_WINDOW_SIZE +1
    s.sendall(frame(1, 4, 1, block(b'POST', b'/w1')))
    s.sendall(frame(8, 0, 1, struct.pack('>I', 2**31 - 1 - 65535)))
    s.sendall(settings(INITIAL_WINDOW_SIZE=65536))
elif case == 'window-overflow-settings-first':
    s.sendall(frame(1, 4, 1, block(b'POST', b'/w2')))
    s.sendall(settings(INITIAL_WINDOW_SIZE=2**31 - 1))
    s.sendall(frame(8, 0, 1, struct.pack('>I', 1)))
elif case == 'initial-window-over-max':
    s.sendall(settings(INITIAL_WINDOW_SIZE=2**31))
elif case == 'negative-window-then-ok':
    # window driven negative by SETTINGS (allowed), then restored: the stream goes on
    s.sendall(frame(1, 5, 1, block(b'GET', b'/w4')))
    s.sendall(settings(INITIAL_WINDOW_SIZE=0))
    time.sleep(0.5)
    s.sendall(settings(INITIAL_WINDOW_SIZE=65535))
elif case == 'ping-flood':
    s.sendall(frame(6, 0, 0, b'12345678') * 20000)
elif case == 'ping-ack-flood':
    s.sendall(frame(6, 1, 0, b'12345678') * 20000)
elif case == 'settings-flood':
    s.sendall(settings() * 20000)
elif case == 'settings-ack-flood':
    s.sendall(frame(4, 1, 0) * 20000)
elif case == 'hpack-expand':
    # one 4,000-byte field put into the dynamic table, then a block that indexes it N times (1 byte each)
    big = b'x-big'; val = b'v' * 4000
    # literal with incremental indexing: 0x40, name len, name, value len (7-bit prefix int)
    def intenc(v, prefix):
        m = (1 << prefix) - 1
        if v < m: return bytes([v])
        out = [m]; v -= m
        while v >= 128: out.append(v % 128 + 128); v //= 128
        out.append(v); return bytes(out)
    lit_idx = b'\x40' + intenc(len(big), 7) + big + intenc(len(val), 7) + val
    s.sendall(frame(1, 5, 1, block(b'GET', b'/h1') + lit_idx))
    n = int(sys.argv[3])
    # index 62 = the newest dynamic entry: 0x80|62 = 0xbe, one byte each
    s.sendall(frame(1, 5, 3, block(b'GET', b'/h3') + b'\xbe' * n))
fr = read_frames(s, 4)
import collections
print(case, len(fr), "frames;", dict(collections.Counter(f.split("(")[0] for f in fr)), [f for f in fr if "GOAWAY" in f or f in ("EOF","RST")])
