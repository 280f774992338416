import re,json,collections,sys
t=open(sys.argv[1]).read()
c=collections.Counter()
for m in re.finditer(r'\{"@timestamp"[^\n]*?"loomgate.config_generation":\d+\}',t):
    try: d=json.loads(m.group(0).replace('&quot;','"'))
    except Exception: continue
    if d.get('url.path')=='/test.Echo/Unary':
        c[(d['http.response.status_code'],d.get('loomgate.failure'),d.get('loomgate.grpc_status'))]+=1
print(sys.argv[1].split('/')[-1], dict(c))
