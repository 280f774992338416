#!/usr/bin/env python3
"""Compares two image archives of ./loomgate dist file by file, leaving out the AOT cache.

    deploy/compare-image-archives.py A.oci.tar B.oci.tar [--allow PATH ...]

The image archive is not byte-identical from one dist to the next, for one reason: /opt/loomgate/loomgate.aot, the
JDK's AOT cache, holds what a training run loaded and profiled, which differs from run to run. Everything that
follows from that file differs with it, and nothing else may: the layer that holds it (its tar, so its digest and
diff_id), the image config (which lists the diff_ids), the manifest (which names the config and layers) and the
archive's index.json. This checks exactly that: each image's layers are read in order and every file of the
filesystem they make (path, type, mode, owner, time, link target, content's SHA-256) must be the same in both, but
for the allowed paths (the AOT cache unless --allow says otherwise); the image configs must be the same once their
rootfs.diff_ids are set aside; every other blob must be the same. Prints what differs; exit status 0 when only the
allowed paths and what follows from them differ, 1 otherwise.
"""
import hashlib
import io
import json
import re
import sys
import tarfile

AOT = "opt/loomgate/loomgate.aot"


def clean(name):
    return (name[2:] if name.startswith("./") else name).lstrip("/").rstrip("/")


def blobs(archive):
    out = {}
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            if m.isfile():
                out[clean(m.name)] = t.extractfile(m).read()
    return out


def blob(files, digest):
    algo, hexdigest = digest.split(":", 1)
    return files["blobs/%s/%s" % (algo, hexdigest)]


def image(files):
    index = json.loads(files["index.json"])
    manifest_desc = index["manifests"][0]
    manifest = json.loads(blob(files, manifest_desc["digest"]))
    config = json.loads(blob(files, manifest["config"]["digest"]))
    return manifest, config


def filesystem(files, manifest):
    """path -> (layer index, description): the file as the last layer that wrote it has it."""
    fs = {}
    for i, layer in enumerate(manifest["layers"]):
        data = blob(files, layer["digest"])
        with tarfile.open(fileobj=io.BytesIO(data)) as t:  # gzip or plain, tarfile tells
            for m in t.getmembers():
                name = clean(m.name)
                base = name.rsplit("/", 1)[-1]
                if base.startswith(".wh."):  # an OCI whiteout removes what a lower layer had
                    fs.pop(name.rsplit("/", 1)[0] + "/" + base[4:] if "/" in name else base[4:], None)
                    continue
                content = hashlib.sha256(t.extractfile(m).read()).hexdigest() if m.isfile() else ""
                fs[name] = (i, (m.type, m.mode, m.uid, m.gid, m.mtime, m.linkname, m.size, content))
    return fs


def normalized(config):
    """The config without rootfs, and with the content digests a COPY step writes into history (they follow from the
    files copied, which the filesystem comparison checks) left out."""
    c = {k: v for k, v in config.items() if k != "rootfs"}
    c["history"] = [dict(h, created_by=re.sub(r"\b(dir|file):[0-9a-f]{64}", r"\1:*", h.get("created_by", "")))
                    for h in config.get("history", [])]
    return c


def main(argv):
    args = argv[1:]
    allowed = {AOT}
    if "--allow" in args:
        at = args.index("--allow")
        allowed = {p.lstrip("/") for p in args[at + 1:]}
        args = args[:at]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    a, b = blobs(args[0]), blobs(args[1])
    (ma, ca), (mb, cb) = image(a), image(b)
    problems, expected = [], []
    fa, fb = filesystem(a, ma), filesystem(b, mb)
    changed_layers = set()
    for path in sorted(set(fa) | set(fb)):
        if path not in fa or path not in fb:
            problems.append("%s: only in %s" % (path, args[0] if path in fa else args[1]))
        elif fa[path][1] != fb[path][1]:
            if path in allowed:
                expected.append("%s differs (layer %d)" % (path, fa[path][0]))
                changed_layers.add(fa[path][0])
            else:
                problems.append("%s differs: %s / %s" % (path, fa[path][1], fb[path][1]))
                changed_layers.add(-1 - fa[path][0])  # a layer with a difference that is not allowed
    if len(ma["layers"]) != len(mb["layers"]):
        problems.append("layer count %d / %d" % (len(ma["layers"]), len(mb["layers"])))
    for i, (la, lb) in enumerate(zip(ma["layers"], mb["layers"])):
        if la["digest"] != lb["digest"]:
            if i in changed_layers and -1 - i not in changed_layers:
                expected.append("layer %d (%s / %s): holds an allowed difference" % (i, la["digest"], lb["digest"]))
            elif -1 - i not in changed_layers:
                problems.append("layer %d differs though every file in it is the same (tar headers, order)" % i)
    if normalized(ca) != normalized(cb) or len(ca["rootfs"]["diff_ids"]) != len(cb["rootfs"]["diff_ids"]):
        problems.append("image configs differ beyond rootfs.diff_ids and the content digests in history")
    else:
        for i, (da, db) in enumerate(zip(ca["rootfs"]["diff_ids"], cb["rootfs"]["diff_ids"])):
            if da != db and i not in changed_layers:
                problems.append("diff_id %d differs" % i)
    for line in expected:
        print("expected: " + line)
    for line in problems:
        print("DIFFERS: " + line)
    if not problems:
        print("same but for %s (and the layer, config, manifest and index that name it)" % ", ".join(sorted(allowed)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
