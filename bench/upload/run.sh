#!/usr/bin/env bash
# Upload workloads beside ../shared/bench/run.sh: 100 MB POSTs through Loomgate and HAProxy in the same run, the
# proxy pinned to core 0 (taskset), curl and the origin on core 1, as the harness pins its workloads.
#
#   U1  HTTP/1.1 plain       curl --http1.1 -T file  -> proxy :18081 -> origin :18080 (HTTP/1.1)
#   U2  HTTP/1.1 over TLS    curl --http1.1 (no ALPN h2) https://127.0.0.1:18081
#   U3  HTTP/2 over TLS      curl --http2 (ALPN h2)   https://127.0.0.1:18081
#
# Each upload is checked: the origin (bench/upload/sink, Go) answers the length and SHA-256 it read. Reported per
# proxy and workload, medians over ITER uploads after WARM unmeasured ones: MB/s (100 MB / curl's total time) and
# the proxy's CPU per MB (utime+stime of the whole process from /proc, ms per MB, JIT included).
#
#   bench/upload/run.sh                                  # loomgate and haproxy-t1, ITER=5
#   ITER=1 WARM=1 bench/upload/run.sh                    # a smoke run
#   PROXIES="loomgate loomgate-conscrypt haproxy-t1" WORKLOADS="U2 U3" bench/upload/run.sh
#
# The proxies' configs are the harness's: Loomgate bench/configs/gateway-bench.yaml (plain) and bench/configs/gw-tls.yaml (TLS;
# bench/configs/gw-tls-conscrypt.yaml for loomgate-conscrypt); HAProxy ../shared/bench/peers/haproxy-t1.cfg and
# haproxy-t1-tls.cfg, whose `option http-buffer-request` is off (HAProxy's default): it relays the body as it comes,
# as Loomgate does. The TLS certificate is the harness's (/tmp/loomgate-bench/tls, made here if missing).
# Needs: the built jar (./loomgate build), go, curl, openssl, haproxy (installed from Debian when missing).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# the harness beside the checkout (../shared/bench), or beside the directory of worktrees
SHARED=${SHARED:-$(cd "$ROOT/../shared/bench" 2> /dev/null || cd "$ROOT/../../shared/bench" && pwd)}
JAR=${JAR:-$ROOT/loomgate-cli/target/loomgate-gateway.jar}
JAVA=${JAVA:-$(ls -d /usr/lib/jvm/*25*/bin/java | head -1)}
PROXIES=${PROXIES:-"loomgate haproxy-t1"}
WORKLOADS=${WORKLOADS:-"U1 U2 U3"}
ITER=${ITER:-5}
WARM=${WARM:-6}  # JSSE's TLS path reaches C2 only after about six 100 MB uploads on a loaded machine (issue 34, session 36)
SIZE=${SIZE:-104857600}
WORK=${WORK:-/tmp/loomgate-upload}
# The harness's ports by default; on a shared machine pick free ones: the configs are copied with these put in.
PROXY_PORT=${PROXY_PORT:-18081}
ORIGIN_PORT=${ORIGIN_PORT:-18080}
ADMIN_PORT=${ADMIN_PORT:-19901}
TLS_DIR=/tmp/loomgate-bench/tls
export BENCH_TLS_CERT=$TLS_DIR/cert.pem BENCH_TLS_KEY=$TLS_DIR/key.pem BENCH_TLS_PEM=$TLS_DIR/bench.pem

command -v haproxy > /dev/null || { echo "installing haproxy" >&2;
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy) > /dev/null; }
for t in curl go openssl haproxy taskset; do
    command -v $t > /dev/null || { echo "upload bench: $t is missing" >&2; exit 2; }
done
[[ -f $JAR ]] || { echo "upload bench: $JAR is missing: run ./loomgate build" >&2; exit 2; }
mkdir -p "$WORK" "$TLS_DIR" /tmp/loomgate-bench
ulimit -n "$(ulimit -Hn)"
if [[ ! -f $BENCH_TLS_PEM ]]; then # as ../shared/bench/run.sh makes it: self-signed ECDSA P-256
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$BENCH_TLS_KEY" \
        -out "$BENCH_TLS_CERT" -days 30 -subj /CN=localhost \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2> /dev/null
    cat "$BENCH_TLS_CERT" "$BENCH_TLS_KEY" > "$BENCH_TLS_PEM"
fi
(cd "$HERE/sink" && GOFLAGS=-mod=mod go build -o "$WORK/sink" .)
[[ -f $WORK/body && $(stat -c %s "$WORK/body") == "$SIZE" ]] || head -c "$SIZE" /dev/urandom > "$WORK/body"
WANT="$SIZE $(sha256sum < "$WORK/body" | cut -c1-64)"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done; wait 2> /dev/null || true; }
trap cleanup EXIT
for port in $PROXY_PORT $ORIGIN_PORT $ADMIN_PORT; do
    if ss -Htln "( sport = :$port )" | grep -q .; then
        echo "upload bench: port $port is in use (set PROXY_PORT, ORIGIN_PORT, ADMIN_PORT)" >&2; exit 2
    fi
done
config() { # file: a copy in WORK with this run's ports
    sed "s/18081/$PROXY_PORT/g; s/18080/$ORIGIN_PORT/g; s/19901/$ADMIN_PORT/g; s#/tmp/loomgate-bench/haproxy-t1.pid#$WORK/haproxy.pid#" "$1" > "$WORK/$(basename "$1")"
    echo "$WORK/$(basename "$1")"
}
taskset -c 1 "$WORK/sink" -addr 127.0.0.1:$ORIGIN_PORT > "$WORK/sink.log" 2>&1 &
pids+=($!)

family() { case $1 in U1) echo plain ;; *) echo tls ;; esac; }
proxy_cmd() { # proxy family
    case $1-$2 in
        loomgate-plain|loomgate-conscrypt-plain)
            echo "$JAVA -Xmx256m -XX:+UseSerialGC -jar $JAR serve --config $(config "$ROOT/bench/configs/gateway-bench.yaml")" ;;
        loomgate-tls) echo "$JAVA -Xmx256m -XX:+UseSerialGC -jar $JAR serve --config $(config "$ROOT/bench/configs/gw-tls.yaml")" ;;
        loomgate-conscrypt-tls)
            echo "$JAVA -Xmx512m -XX:+UseSerialGC -jar $JAR serve --config $(config "$ROOT/bench/configs/gw-tls-conscrypt.yaml")" ;;
        haproxy-t1-plain) echo "haproxy -db -f $(config "$SHARED/peers/haproxy-t1.cfg")" ;;
        haproxy-t1-tls) echo "haproxy -db -f $(config "$SHARED/peers/haproxy-t1-tls.cfg")" ;;
        *) echo "unknown proxy $1" >&2; exit 2 ;;
    esac
}
url() { [[ $(family "$1") == plain ]] && echo http://127.0.0.1:$PROXY_PORT/upload || echo https://127.0.0.1:$PROXY_PORT/upload; }
proto() { case $1 in U3) echo --http2 ;; *) echo --http1.1 ;; esac; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

upload() { # workload: one upload; prints seconds, or fails
    local out
    out=$(taskset -c 1 curl -sS -k --max-time 300 "$(proto "$1")" -H Expect: -X POST -T "$WORK/body" \
        -w '\n%{time_total}' "$(url "$1")")
    [[ $(head -1 <<< "$out") == "$WANT" ]] || { echo "upload bench: the origin read '$(head -1 <<< "$out")', not '$WANT'" >&2; return 1; }
    tail -1 <<< "$out"
}

printf '%-20s %-4s %10s %14s %7s\n' proxy load "MB/s" "CPU ms/MB" errors
for proxy in $PROXIES; do
    current=""
    for w in $WORKLOADS; do
        fam=$(family "$w")
        if [[ $current != "$fam" ]]; then
            [[ -n ${P:-} ]] && { kill "$P" 2> /dev/null || true; wait "$P" 2> /dev/null || true; }
            # shellcheck disable=SC2046
            taskset -c 0 $(proxy_cmd "$proxy" "$fam") > "$WORK/$proxy-$fam.log" 2>&1 &
            P=$!
            pids+=("$P")
            for _ in $(seq 150); do
                curl -sk -o /dev/null --max-time 2 "$(url "$w" | sed 's/upload$/hello/')" && break
                sleep 0.2
            done
            current=$fam
        fi
        errors=0
        for _ in $(seq "$WARM"); do upload "$w" > /dev/null || errors=$((errors + 1)); done
        : > "$WORK/rates"; : > "$WORK/cpu"
        for _ in $(seq "$ITER"); do
            c0=$(ticks "$P")
            if s=$(upload "$w"); then
                c1=$(ticks "$P")
                awk -v s="$s" -v n="$SIZE" 'BEGIN { printf "%.1f\n", n / 1e6 / s }' >> "$WORK/rates"
                awk -v t=$((c1 - c0)) -v n="$SIZE" 'BEGIN { printf "%.2f\n", t * 10 / (n / 1e6) }' >> "$WORK/cpu"
            else
                errors=$((errors + 1))
            fi
        done
        printf '%-20s %-4s %10s %14s %7s\n' "$proxy" "$w" "$(median < "$WORK/rates")" "$(median < "$WORK/cpu")" "$errors"
    done
    kill "$P" 2> /dev/null || true; wait "$P" 2> /dev/null || true; P=""
done
