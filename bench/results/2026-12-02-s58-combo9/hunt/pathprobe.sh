#!/bin/bash
# pathprobe.sh PORT [h2]: each path through the gateway with curl --path-as-is; prints status and what the origin saw.
PORT=$1; V=${2:+--http2-prior-knowledge}
for p in '/admin/x' '/public/../admin/x' '/public/%2e%2e/admin/x' '/public/..%2Fadmin/x' '/public/%2E%2E%2Fadmin/x' \
  '/public/..%5Cadmin/x' '/public/..\admin/x' '/red/..%2Fadmin/x' '/red/%2e%2e%2fadmin' '/red..' '/red/.%2e/admin' \
  '/ver/..-v1/admin/x' '/ver/.-v1/admin' '/ver/x/..-v1' '/sp/..%2Fadmin' '/sp/%2E.' '/spx/v../x' '/spx/v.%2e/x' \
  '/strip/..%2Fadmin/x' '/strip/%2e%2e/admin' '/public/%C3%A9t%C3%A9' '/public/été' '/red/caf%C3%A9?q=%2F..'; do
  out=$(curl -s $V --path-as-is -o /tmp/combo9-pp.body -w '%{http_code}' "http://127.0.0.1:$PORT$p")
  printf '%-28s %s  origin: %s\n' "$p" "$out" "$( [ "$out" = 200 ] && cat /tmp/combo9-pp.body || head -c 90 /tmp/combo9-pp.body | tr '\n' ' ')"
done
