# the flag variants of this folder's runs (bench/harness-phases' opt<x>: the launcher's flags and cache plus these)
# opt1: ProxyHandler.handle, the one method both HTTP/1.1's serveOne and HTTP/2's runStream call, kept a root of its
# own, so that the HTTP/1.1 warm-up's C2 compiles it and HTTP/2's streams find it compiled
export OPTS_opt1="-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,io.loomgate.proxy.ProxyHandler::handle"
