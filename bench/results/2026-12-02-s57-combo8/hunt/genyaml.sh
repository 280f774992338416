#!/bin/bash
# genyaml.sh <gen 1|2|bad> <port> <tls: none|jdk|conscrypt>: the reload hunt's gateway file, generation by generation
gen=$1 port=$2 tls=$3
echo "server:"; echo "  port: $port"
if [ $tls != none ]; then printf "  ssl:\n    provider: $tls\n    certificate: /work/wt/combo8/bench/results/2026-12-02-s57-combo8/hunt/origin.crt\n    certificate-private-key: /work/wt/combo8/bench/results/2026-12-02-s57-combo8/hunt/origin.key\n"; fi
printf "admin:\n  port: $((port+1))\naccess-log:\n  format: json\n"
if [ $gen = bad ]; then printf "upstream:\n  max-conections: 10\n"; fi
echo "routes:"
if [ $gen = 1 ]; then
cat <<Y
  - id: be
    uri: http://127.0.0.1:29501
    predicates: [ "Path=/be/**" ]
    filters: [ "StripPrefix=1", "AddResponseHeader=X-Gen, 1" ]
Y
else
cat <<Y
  - id: be
    uri: h2c://127.0.0.1:29520
    predicates: [ "Path=/be/**" ]
    filters:
      - StripPrefix=1
      - AddResponseHeader=X-Gen, 2
      - name: Retry
        args: { retries: 2, methods: "GET,POST", series: SERVER_ERROR }
      - name: CircuitBreaker
        args: { name: be-cb }
      - name: RequestRateLimiter
        args: { replenish-rate: 1000, burst-capacity: 1000, key-resolver: "header:X-K", deny-empty-key: false }
Y
fi
cat <<Y
  - id: ws
    uri: http://127.0.0.1:29501
    predicates: [ "Path=/ws" ]
  - id: grpc
    uri: h2c://127.0.0.1:29503
    predicates: [ "Path=/g.Svc/**" ]
    filters: [ "AddResponseHeader=X-Gen, $gen" ]
Y
