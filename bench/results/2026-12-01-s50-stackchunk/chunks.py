#!/usr/bin/env python3
"""chunks.py heap.hprof [ADDRS]: the jdk.internal.vm.StackChunk instances of a heap dump (wait.sh with HEAPDUMP=1): their
declared fields (size, sp, bottom in words; parent), so: capacity against the part in use, and how many chains
(a thread's chunks linked by parent) hold more than one."""
import sys, struct, collections
f = open(sys.argv[1], 'rb'); data = f.read()
i = data.index(b'\0') + 1
idsz = struct.unpack('>I', data[i:i + 4])[0]; i += 12
rid = lambda o: int.from_bytes(data[o:o + idsz], 'big')
SZ = {2: idsz, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
strings, cls_name, fields, supers, chunks = {}, {}, {}, {}, []
def heap(o, end):
    while o < end:
        t = data[o]; o += 1
        if t == 0xFF: o += idsz
        elif t == 0x01: o += 2 * idsz
        elif t in (0x02, 0x03, 0x08): o += idsz + 8
        elif t in (0x04, 0x06): o += idsz + 4
        elif t in (0x05, 0x07): o += idsz
        elif t == 0x20:
            c = rid(o); sup = rid(o + idsz + 4); o += 7 * idsz + 4 + 4
            n = struct.unpack('>H', data[o:o + 2])[0]; o += 2
            for _ in range(n):
                ty = data[o + 2]; o += 3 + SZ[ty]
            n = struct.unpack('>H', data[o:o + 2])[0]; o += 2
            for _ in range(n):
                ty = data[o + idsz]; o += idsz + 1 + SZ[ty]
            n = struct.unpack('>H', data[o:o + 2])[0]; o += 2
            fl = []
            for _ in range(n):
                fl.append((rid(o), data[o + idsz])); o += idsz + 1
            fields[c] = fl; supers[c] = sup
        elif t == 0x21:
            oid = rid(o); c = rid(o + idsz + 4); n = struct.unpack('>I', data[o + 2 * idsz + 4:o + 2 * idsz + 8])[0]
            body = o + 2 * idsz + 8
            if c in want:
                chunks.append((oid, c, body, n))
            o = body + n
        elif t == 0x22:
            n = struct.unpack('>I', data[o + idsz + 4:o + idsz + 8])[0]; o += 2 * idsz + 8 + n * idsz
        elif t == 0x23:
            n = struct.unpack('>I', data[o + idsz + 4:o + idsz + 8])[0]; ty = data[o + idsz + 8]; o += idsz + 9 + n * SZ[ty]
        else:
            raise SystemExit(f'unknown sub-record {t:#x} at {o}')
want = set()
recs = []
while i < len(data):
    tag = data[i]; ln = struct.unpack('>I', data[i + 5:i + 9])[0]; b = i + 9
    if tag == 0x01: strings[rid(b)] = data[b + idsz:b + ln].decode('utf-8', 'replace')
    elif tag == 0x02: cls_name[rid(b + 4)] = rid(b + 8 + idsz)
    elif tag in (0x0C, 0x1C): recs.append((b, b + ln))
    i = b + ln
for c, n in cls_name.items():
    if strings.get(n) == 'jdk/internal/vm/StackChunk': want.add(c)
for b, e in recs: heap(b, e)
def decode(c, body):
    vals, o = {}, body
    while c:
        for nm, ty in fields.get(c, []):
            v = data[o:o + SZ[ty]]; o += SZ[ty]
            vals.setdefault(strings.get(nm), int.from_bytes(v, 'big', signed=(ty != 2)))
        c = supers.get(c)
    return vals
objs = {oid: decode(c, body) for oid, c, body, n in chunks}
if len(sys.argv) > 2:  # s50: the chunks' addresses and fields for ChunkFrames.java (the agent reads their stacks)
    with open(sys.argv[2], 'w') as w:
        for oid, v in objs.items():
            w.write(f"{oid:x} {v.get('sp', 0)} {v.get('bottom', 0)} {v.get('size', 0)} {(v.get('parent') or 0):x}\n")
print(f'{len(objs)} StackChunk instances; fields: {sorted(next(iter(objs.values())).keys()) if objs else []}')
sizes = collections.Counter(); used = []; cap = []
parents = set(v.get('parent') for v in objs.values() if v.get('parent'))
for oid, v in objs.items():
    cap.append(v.get('size', 0)); used.append(v.get('bottom', 0) - v.get('sp', 0))
chained = sum(1 for oid, v in objs.items() if v.get('parent'))
print(f'capacity (words) total {sum(cap)}, in use (bottom - sp) {sum(used)}; chunks with a parent {chained}, '
      f'chunks that are a parent {len(parents)}')
import statistics
if cap:
    print(f'capacity per chunk median {statistics.median(cap)} words, in use median {statistics.median(used)} words')
    for (c, u), n in collections.Counter((a, b) for a, b in zip(cap, used)).most_common(12):
        print(f'  {n:5d} chunks of {c} words, {u} in use')
# a chain: the chunk a thread's continuation points at (no chunk names it as parent) and its parents below it
pairs = collections.Counter()
for oid, v in objs.items():
    if oid in parents:
        continue
    chain, c = [], oid
    while c and c in objs:
        chain.append((objs[c]['size'], objs[c]['bottom'] - objs[c]['sp'])); c = objs[c].get('parent')
    pairs[tuple(chain)] += 1
print('chains, top chunk first: (capacity, in use) words')
for ch, n in pairs.most_common(8):
    print(f'  {n:5d}  {ch}')
