# shares.awk CPU.collapsed (async-profiler, collapsed): shares of all samples (kernel included) in the socket and TLS
# I/O (the EngineChannel and the JDK's socket streams, BoringSSL and the kernel's send and receive under them), and in
# the work the gateway's defaults do that the harness's HAProxy config does not ask HAProxy for.
{
  n = $NF; $NF = ""; t += n
  if ($0 ~ /EngineChannel|SocketDispatcher|SocketInputStream|SocketOutputStream|NioSocketImpl|SocketChannelImpl/) io += n
  c = ""
  if ($0 ~ /ForwardedHeaders|cleanForwardingFields/) c = "forwarding fields (X-Forwarded-*, Forwarded, Via)"
  else if ($0 ~ /TraceContext/) c = "trace context (ids, traceparent)"
  else if ($0 ~ /LogContext/) c = "trace ids in the MDC (LogContext)"
  else if ($0 ~ /GatewayMetrics|RouteMeters|UpstreamMeters|io\/micrometer/) c = "metrics"
  else if ($0 ~ /ResponseHeadRewriter/) c = "response head rewrite (hop-by-hop, Via)"
  else if ($0 ~ /UnderscoreFields/) c = "underscore screen"
  if (c != "") s[c] += n
  if ($0 ~ /Java8EngineWrapper.wrap/) wrap += n
  if ($0 ~ /Java8EngineWrapper.unwrap/) unwrap += n
  if ($0 ~ /yieldBeforeWait/) yield += n
}
END {
  printf "samples %d; socket and TLS I/O %.1f%% (Conscrypt wrap %.1f%%, unwrap %.1f%%); yields before waits %.1f%%\n",
      t, 100 * io / t, 100 * wrap / t, 100 * unwrap / t, 100 * yield / t
  for (x in s) { printf "  %5.2f%%  %s\n", 100 * s[x] / t, x; f += s[x] }
  printf "  %5.2f%%  together\n", 100 * f / t
}
