exec(open('./h2probe.py').read().split('port=int')[0])
for cl, body in (("10", b"12345"), ("3", b"12345")):
    for path in ("/rr/echo", "/hello"):
        print("--- content-length", cl, "body", len(body), path)
        run([(":method","POST"),(":scheme","http"),(":path",path),(":authority","localhost"),("content-length",cl)], body=body, port=29840)
