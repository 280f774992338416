#!/usr/bin/env python3
"""Adds the container image's own components to the CycloneDX SBOM of the jars (./loomgate dist runs it).

    deploy/image-sbom.py <sbom.json> <rootfs> <java-properties.txt> [<host-root>]  (writes sbom.json in place)

Read from the built image, not from a hand list:
  * the JRE: `java -XshowSettings:properties -version` run in the image (vendor, runtime version) and its jlinked
    modules (<rootfs>/opt/loomgate/jre/release);
  * the operating system's packages: every package of the image's dpkg database when it has one (a Debian base);
    otherwise each shared library in the image's library directories, identified as the build host's package file it
    is byte for byte (the local runtime base is made of the host's files, deploy/container/build-local-bases.sh),
    with dpkg on the host naming package and version; glibc's own version string is read from libc.so.6 either way.
Components are sorted and carry no time, so the same image gives the same SBOM.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
from urllib.parse import quote

LIB_DIRS = ("lib", "lib64", "lib/x86_64-linux-gnu", "usr/lib", "usr/lib/x86_64-linux-gnu", "usr/lib64")


def read_release(rootfs):
    values = {}
    path = os.path.join(rootfs, "opt/loomgate/jre/release")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    values[k] = v.strip('"')
    return values


def read_properties(path):
    props = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s+([\w.]+) = (.*)$", line.rstrip("\n"))
            if m:
                props[m.group(1)] = m.group(2)
    return props


def os_release(root):
    values = {}
    for rel in ("etc/os-release", "usr/lib/os-release"):
        path = os.path.join(root, rel)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if "=" in line:
                        k, v = line.rstrip("\n").split("=", 1)
                        values[k] = v.strip('"')
            break
    return values


def purl_deb(distro, package, version, arch):
    return "pkg:deb/%s/%s@%s?arch=%s" % (distro, quote(package), quote(version, safe=""), quote(arch))


def jre_component(props, release):
    version = props.get("java.runtime.version") or release.get("JAVA_VERSION", "unknown")
    vendor = props.get("java.vendor", "unknown")
    c = {
        "type": "platform",
        "bom-ref": "pkg:generic/jre@%s?vendor=%s" % (quote(version, safe=""), quote(vendor, safe="")),
        "supplier": {"name": vendor},
        "name": "jre",
        "version": version,
        "description": "the image's Java runtime (%s), jlinked with only the modules the gateway uses"
        % props.get("java.vendor.version", vendor),
        "purl": "pkg:generic/jre@%s?vendor=%s" % (quote(version, safe=""), quote(vendor, safe="")),
        "properties": [{"name": "loomgate:image-path", "value": "/opt/loomgate/jre"}],
    }
    if release.get("MODULES"):
        c["properties"].append({"name": "loomgate:jre-modules", "value": release["MODULES"]})
    return c


def dpkg_status_components(rootfs, distro):
    path = os.path.join(rootfs, "var/lib/dpkg/status")
    if not os.path.exists(path):
        return None
    out = []
    with open(path, encoding="utf-8") as f:
        for stanza in f.read().split("\n\n"):
            fields = dict(re.findall(r"^([\w-]+): (.*)$", stanza, re.M))
            if "Package" not in fields or "installed" not in fields.get("Status", ""):
                continue
            purl = purl_deb(distro, fields["Package"], fields["Version"], fields.get("Architecture", "all"))
            out.append({"type": "library", "bom-ref": purl, "name": fields["Package"], "version": fields["Version"],
                        "purl": purl})
    return out


def shared_libraries(rootfs):
    seen = {}
    for d in LIB_DIRS:
        full = os.path.join(rootfs, d)
        if not os.path.isdir(full) or os.path.islink(full):
            continue
        for name in sorted(os.listdir(full)):
            path = os.path.join(full, name)
            if ".so" in name and os.path.isfile(path) and not os.path.islink(path):
                seen.setdefault("/" + d + "/" + name, path)
    return seen


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def host_package(image_path, local_file, host_root):
    """The host's dpkg package whose file this is, byte for byte; None when it is not one."""
    candidates = [image_path]
    if image_path.startswith("/lib/"):
        candidates.append("/usr" + image_path)
    for c in candidates:
        host = os.path.join(host_root, c.lstrip("/"))
        if os.path.isfile(host) and sha256(host) == sha256(local_file):
            try:
                owner = subprocess.run(["dpkg", "-S", c], capture_output=True, text=True, check=True).stdout
            except (OSError, subprocess.CalledProcessError):
                continue
            package = owner.split(": ")[0].split(", ")[0]  # "libc6:amd64: /path"
            q = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version} ${Architecture}", package],
                               capture_output=True, text=True)
            if q.returncode == 0 and q.stdout.strip():
                name, version, arch = q.stdout.split()[:3]
                return name, version, arch
    return None


def glibc_version(rootfs):
    for d in LIB_DIRS:
        path = os.path.join(rootfs, d, "libc.so.6")
        if os.path.isfile(path):
            with open(path, "rb") as f:
                m = re.search(rb"GNU C Library \(([^)]*)\) [a-z ]*version ([0-9]+(?:\.[0-9]+)*)", f.read())
            if m:
                return m.group(2).decode(), m.group(1).decode(), "/" + d + "/libc.so.6"
    return None


def library_components(rootfs, host_root):
    host_os = os_release(host_root)
    distro = host_os.get("ID", "unknown")
    by_package = {}
    unknown = []
    for image_path, local in shared_libraries(rootfs).items():
        owner = host_package(image_path, local, host_root)
        if owner is None:
            unknown.append(image_path)
            continue
        by_package.setdefault(owner, []).append(image_path)
    out = []
    for (name, version, arch), paths in sorted(by_package.items()):
        purl = purl_deb(distro, name, version, arch)
        out.append({"type": "library", "bom-ref": purl, "name": name, "version": version, "purl": purl,
                    "properties": [{"name": "loomgate:image-path", "value": p} for p in sorted(paths)]})
    for path in sorted(unknown):
        out.append({"type": "file", "bom-ref": "file:" + path, "name": path,
                    "hashes": [{"alg": "SHA-256", "content": sha256(shared_libraries(rootfs)[path])}],
                    "description": "a shared library of the image whose package could not be told"})
    return out


def main(argv):
    if len(argv) not in (4, 5):
        sys.stderr.write(__doc__)
        return 2
    sbom_path, rootfs, props_path = argv[1:4]
    host_root = argv[4] if len(argv) == 5 else "/"
    with open(sbom_path, encoding="utf-8") as f:
        bom = json.load(f)
    components = [jre_component(read_properties(props_path), read_release(rootfs))]
    image_os = os_release(rootfs)
    packages = dpkg_status_components(rootfs, image_os.get("ID", "unknown"))
    if packages is not None:
        if image_os:
            components.append({"type": "operating-system", "bom-ref": "os:" + image_os.get("ID", "unknown"),
                               "name": image_os.get("ID", "unknown"), "version": image_os.get("VERSION_ID", "")})
        components += packages
    else:
        components += library_components(rootfs, host_root)
    glibc = glibc_version(rootfs)
    if glibc is not None:
        version, build, path = glibc
        components.append({"type": "library", "bom-ref": "pkg:generic/glibc@" + version, "name": "glibc",
                           "version": version, "purl": "pkg:generic/glibc@" + version,
                           "description": "GNU C Library (%s), read from the image's %s" % (build, path)})
    refs = {c["bom-ref"] for c in components}
    kept = [c for c in bom.get("components", []) if c.get("bom-ref") not in refs]
    bom["components"] = kept + sorted(components, key=lambda c: (c["type"], c["name"], c.get("version", "")))
    with open(sbom_path, "w", encoding="utf-8") as f:
        json.dump(bom, f, indent=2, sort_keys=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
