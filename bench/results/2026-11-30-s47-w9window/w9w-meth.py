import json, subprocess, sys
J='/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr'
f, want = sys.argv[1], sys.argv[2]
ev = json.loads(subprocess.run([J,'print','--json','--events','jdk.Compilation,jdk.Deoptimization',f],capture_output=True,text=True).stdout)['recording']['events']
for e in sorted(ev, key=lambda e: e['values']['startTime']):
    v=e['values']; m=v['method']; n=m['type']['name'].split('/')[-1]+'::'+m['name']
    if want in n:
        if e['type']=='jdk.Compilation':
            print(v['startTime'][11:23], 'compile', v['compileId'], 'L%s'%v['compileLevel'], 'osr' if v['isOsr'] else '', v['duration'], v.get('codeSize'))
        else:
            print(v['startTime'][11:23], 'DEOPT of', v['compileId'], v['lineNumber'], v['reason'], v['action'], v['instruction'])
