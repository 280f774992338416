#!/usr/bin/env python3
"""Static checks on the Dockerfile, in the manner of hadolint, for what a machine without a registry cannot run:
  DL3006/DL3007  every base image (ARG defaults resolved) is pinned: a version tag, not 'latest', or a digest
  DL3002         the final stage runs as a non-root USER
  DL3025         ENTRYPOINT and CMD in exec form (JSON), so the JVM is PID 1 and SIGTERM reaches it
  DL3020         COPY, not ADD (no remote URLs or archives unpacked by surprise)
  LG001          HEALTHCHECK in exec form on /health/ready
  LG002          EXPOSE 8080 and 9977
  LG003          the JVM's heap follows the container limit (MaxRAMPercentage) and it exits on OutOfMemoryError
usage: lint-dockerfile.py [Dockerfile]; exit 0 clean, 1 with one line per finding."""
import json
import re
import sys


def instructions(text):
    """(line, keyword, argument) per instruction, continuation lines joined, comments dropped."""
    out, buf, start = [], "", 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if not buf:
            start = n
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        keyword, _, arg = buf.partition(" ")
        out.append((start, keyword.upper(), arg.strip()))
        buf = ""
    return out


def exec_form(arg):
    try:
        value = json.loads(arg)
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    except ValueError:
        return False


def pinned(image):
    if "@sha256:" in image:
        return True
    name, _, tag = image.rpartition(":") if ":" in image.split("/")[-1] else (image, "", "")
    return bool(tag) and tag != "latest" and re.search(r"\d", tag) is not None


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "Dockerfile"
    ins = instructions(open(path).read())
    findings, args, stages, names = [], {}, [], set()
    for line, kw, arg in ins:
        if kw == "ARG" and "=" in arg and not stages:
            k, _, v = arg.partition("=")
            args[k.strip()] = v.strip().strip('"')
        if kw == "FROM":
            image = arg.split()[0]
            resolved = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args.get(m.group(1) or m.group(2), ""), image)
            stages.append([])
            words = arg.split()
            earlier_stage = resolved in names
            if len(words) >= 3 and words[1].upper() == "AS":
                names.add(words[2])
            if resolved != "scratch" and not earlier_stage and not pinned(resolved):
                findings.append(f"{path}:{line}: DL3006/DL3007 base image '{resolved}' is not pinned to a version")
        if stages:
            stages[-1].append((line, kw, arg))
    if not stages:
        findings.append(f"{path}: no FROM")
        final = []
    else:
        final = stages[-1]
    users = [(l, a) for l, k, a in final if k == "USER"]
    if not users:
        findings.append(f"{path}: DL3002 the final stage has no USER: it would run as root")
    elif users[-1][1].split(":")[0] in ("root", "0"):
        findings.append(f"{path}:{users[-1][0]}: DL3002 the final stage's USER is root")
    for kw in ("ENTRYPOINT", "CMD"):
        for l, k, a in final:
            if k == kw and not exec_form(a):
                findings.append(f"{path}:{l}: DL3025 {kw} is in shell form: SIGTERM would reach a shell, not the JVM")
    if not any(k == "ENTRYPOINT" for _, k, _ in final):
        findings.append(f"{path}: no ENTRYPOINT in the final stage")
    for l, k, a in ins:
        if k == "ADD":
            findings.append(f"{path}:{l}: DL3020 use COPY instead of ADD")
    health = [(l, a) for l, k, a in final if k == "HEALTHCHECK"]
    if not health:
        findings.append(f"{path}: LG001 no HEALTHCHECK")
    else:
        l, a = health[-1]
        cmd = a[a.find("CMD") + 3:].strip() if "CMD" in a else ""
        if not exec_form(cmd) or "/health/ready" not in cmd:
            findings.append(f"{path}:{l}: LG001 HEALTHCHECK should be CMD [...] in exec form on /health/ready")
    exposed = {p for _, k, a in final if k == "EXPOSE" for p in a.split()}
    for port in ("8080", "9977"):
        if port not in exposed and port + "/tcp" not in exposed:
            findings.append(f"{path}: LG002 port {port} is not exposed")
    entry = " ".join(a for _, k, a in final if k == "ENTRYPOINT")
    for flag in ("-XX:MaxRAMPercentage=", "-XX:+ExitOnOutOfMemoryError"):
        if flag not in entry:
            findings.append(f"{path}: LG003 the ENTRYPOINT lacks {flag}")
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
