import socket, sys
cases = {
 'chunk size 17 digits with leading zeros': b'POST /s1 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000001\r\nx\r\n0\r\n\r\n',
 'chunk size 40 zeros then 5': b'POST /s2 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n' + b'0'*40 + b'5\r\nhello\r\n0\r\n\r\n',
 'last chunk 000 (3 zeros)': b'POST /s3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n000\r\n\r\n',
 'TE chunked, identity': b'POST /s4 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n',
 'TE identity, chunked': b'POST /s5 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: identity, chunked\r\n\r\n0\r\n\r\n',
 'CL +5': b'POST /s6 HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\nhello',
 'obs-fold on TE': b'POST /s7 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n',
 'obs-fold on CL': b'POST /s8 HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n 5\r\n\r\nhello',
 'bare CR line end in head': b'GET /s9 HTTP/1.1\r\nHost: h\rX-A: 1\r\n\r\n',
 'bare CR after chunk size': b'POST /s10 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\rx\r\n0\r\n\r\n',
 'bare CR in request line': b'GET /s11\r HTTP/1.1\r\nHost: h\r\n\r\n',
 'CR in chunk data end': b'POST /s12 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r0\r\n\r\n',
 'TE chunked with trailing comma': b'POST /s13 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked,\r\n\r\n0\r\n\r\n',
 'TE: CHUNKED upper': b'POST /s14 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: CHUNKED\r\n\r\n0\r\n\r\n',
 'CL 05 leading zero': b'POST /s15 HTTP/1.1\r\nHost: h\r\nContent-Length: 05\r\n\r\nhello',
 'CL "5, 5" list': b'POST /s16 HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\nhello',
 'chunk size 0x': b'POST /s17 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0x0\r\n\r\n',
 'chunk size with underscore': b'POST /s18 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1_0\r\n' + b'x'*16 + b'\r\n0\r\n\r\n',
}
hidden = b'GET /hidden HTTP/1.1\r\nHost: h\r\n\r\n'
for name, raw in cases.items():
    s = socket.create_connection(('127.0.0.1', 29802)); s.settimeout(4)
    s.sendall(raw + hidden)
    got = b''
    try:
        while True:
            d = s.recv(65536)
            if not d: break
            got += d
    except Exception as e:
        got += b' <' + str(e).encode() + b'>'
    s.close()
    statuses = [l.split(b' ')[1].decode() for l in got.split(b'\r\n') if l.startswith(b'HTTP/1.1 ')]
    print('%-40s statuses %s' % (name, statuses))
