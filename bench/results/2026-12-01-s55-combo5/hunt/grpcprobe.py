import sys; sys.argv=[sys.argv[0]]+sys.argv[1:]
exec(open('./h2probe.py').read().split('port=int')[0])
import struct
port=int(sys.argv[1]); path=sys.argv[2]; n=int(sys.argv[3]) if len(sys.argv)>3 else 1
for i in range(n):
    print("---", path, i)
    msg=b"\x0a\x03abc"
    run([(":method","POST"),(":scheme","http"),(":path",path),(":authority","localhost"),("content-type","application/grpc"),("te","trailers")], body=b"\x00"+struct.pack(">I",len(msg))+msg, port=port)
