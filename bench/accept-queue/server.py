# The listener of bench/accept-queue/run.sh: see there.
# A listener that accepts at a bounded rate (as a proxy at its connection limit does, one accept per freed slot):
# backlog B, first accept after D s, then R accepts per second; answers each request at once.
import socket, sys, time, threading, selectors
port, backlog, delay, rate = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
batch = int(sys.argv[5]) if len(sys.argv) > 5 else 1
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port)); ls.listen(backlog)
sel = selectors.DefaultSelector(); lock = threading.Lock()
def acceptor():
    time.sleep(delay)
    while True:
        for _ in range(batch):
            c, _ = ls.accept(); c.setblocking(False)
            with lock: sel.register(c, selectors.EVENT_READ)
        time.sleep(batch / rate)
threading.Thread(target=acceptor, daemon=True).start()
resp = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
while True:
    with lock: ev = sel.select(timeout=0.01) if sel.get_map() else []
    if not ev: time.sleep(0.001)
    for k, _ in ev:
        try:
            d = k.fileobj.recv(4096)
            if d: k.fileobj.send(resp)
            else:
                with lock: sel.unregister(k.fileobj)
                k.fileobj.close()
        except OSError:
            with lock: sel.unregister(k.fileobj)
