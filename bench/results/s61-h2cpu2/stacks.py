#!/usr/bin/env python3
"""Callers of a counted method (a COUNT window's collapsed stacks): the innermost K io/loomgate or JDK I/O frames of
each stack, with the calls per request. Usage: stacks.py FILE REQUESTS [K]"""
import sys, collections
f, req = sys.argv[1], int(sys.argv[2]); K = int(sys.argv[3]) if len(sys.argv) > 3 else 5
c = collections.Counter()
for line in open(f):
    st, n = line.rsplit(' ', 1); fr = st.split(';')
    own = [y.split('/')[-1] for y in fr if y.startswith('io/loomgate') or 'sun/nio' in y][-K:]
    c[' < '.join(reversed(own))] += int(n)
for k, n in c.most_common(15): print(f"{n/req:7.3f} {k}")
