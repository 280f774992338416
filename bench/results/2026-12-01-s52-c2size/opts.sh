# the dontinline sets measured (sourced by the runs here): OPTS_opt1 = per-request boundaries off the origin wait's
# frames whose inlined trees the census found large and compiled into several roots
dl() { local s="-XX:CompileCommand=quiet"; for m in "$@"; do s+=" -XX:CompileCommand=dontinline,$m"; done; echo "$s"; }
export OPTS_opt1=$(dl io.loomgate.proxy.ForwardedHeaders::apply io.loomgate.proxy.TraceContext::start \
    io.loomgate.proxy.TraceContext::sendUpstream io.loomgate.proxy.RequestScreen::answeredLocally \
    io.loomgate.proxy.UpstreamAttempt::connect io.loomgate.proxy.ProxyHandler::end)
# OPTS_opt2: opt1 and the rest of the forwarder's and the proxy phase's pre-wait subtrees (opt1's cuts were refilled:
# Link::proceed stays at C2's DesiredMethodLimit), and the metrics listener's callbacks
export OPTS_opt2="$OPTS_opt1 $(dl io.loomgate.proxy.UpstreamAttempt::sendHead io.loomgate.upstream.Upstream::select \
    io.loomgate.proxy.UpstreamForwarder::acceptHead io.loomgate.proxy.ProxyHandler::prepareUpstreamRequest \
    io.loomgate.proxy.ProxyHandler::matchRoute 'io.loomgate.observe.GatewayMetrics::*' | sed 's/-XX:CompileCommand=quiet //')"
