exec(open('./h2probe.py').read().split('port=int')[0])
import struct, time
msg=b"\x0a\x03abc"
t=time.time()
run([(":method","POST"),(":scheme","http"),(":path","/rr/api/data?delay=3000"),(":authority","localhost"),("content-type","application/grpc"),("te","trailers"),("grpc-timeout","500m")], body=b"\x00"+struct.pack(">I",len(msg))+msg, port=29840)
print("took", round(time.time()-t,2))
