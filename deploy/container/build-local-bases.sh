#!/usr/bin/env bash
# Builds the two base images the Dockerfile takes as build arguments from this machine's own files, for machines
# that cannot reach a container registry (like the one CI runs on). Nothing is pulled:
#   localhost/loomgate-build-base:<jdk>-maven<v>  busybox (the shell and tools mvnw needs), glibc, the host's JDK at
#                                           /opt/java, and the Maven distribution mvnw names, from this machine's
#                                           wrapper folder (mvnw downloads it on the host first if it is not there)
#   localhost/loomgate-runtime-base:<libc> glibc, /etc/passwd with a non-root user 10001, /tmp; no shell, no package
#                                           manager: a distroless-style base for the jlinked JRE
# Prints the two image names, one a line: build base first (with --env: export lines for compose.yaml's build
# arguments). Reuses images that already exist.
#   JDK=/usr/lib/jvm/temurin-25-jdk-amd64 PODMAN="podman --runtime runc" deploy/container/build-local-bases.sh
set -euo pipefail
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
PODMAN=${PODMAN:-podman --runtime runc}
BUSYBOX=${BUSYBOX:-/bin/busybox}
[[ -x $JDK/bin/jlink ]] || { echo "build-local-bases: no JDK with jlink at $JDK" >&2; exit 1; }
[[ -x $BUSYBOX ]] || { echo "build-local-bases: no static busybox at $BUSYBOX (apt-get install busybox-static)" >&2; exit 1; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
jdk_version=$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$JDK/release" | tr '+' '_')
libc_version=$(ldd --version | sed -n '1s/.* //p') # sed reads it all: head would end ldd with SIGPIPE
maven_version=$(sed -n 's|^distributionUrl=.*/apache-maven-\([^/]*\)-bin\.zip$|\1|p' "$ROOT/.mvn/wrapper/maven-wrapper.properties")
# The tag names what is inside, so a base made by an older version of this script (without Maven) is not reused.
build_image=localhost/loomgate-build-base:${jdk_version:-jdk}-maven${maven_version:-unknown}
runtime_image=localhost/loomgate-runtime-base:glibc-${libc_version}

exists() { $PODMAN image exists "$1"; }

# The loader and the shared libraries the JDK's own binaries and libraries link against (X11/ALSA excepted: the
# jlinked runtime has no java.desktop).
glibc_into() {
    local root=$1 lib
    mkdir -p "$root/lib64" "$root/lib/x86_64-linux-gnu" "$root/etc" "$root/tmp"
    chmod 1777 "$root/tmp"
    cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
    for lib in libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libgcc_s.so.1 libz.so.1; do
        [[ -e /lib/x86_64-linux-gnu/$lib ]] && cp -L "/lib/x86_64-linux-gnu/$lib" "$root/lib/x86_64-linux-gnu/"
    done
    printf 'root:x:0:0:root:/root:/sbin/nologin\nloomgate:x:10001:10001:loomgate:/home/loomgate:/sbin/nologin\n' \
        >"$root/etc/passwd"
    printf 'root:x:0:\nloomgate:x:10001:\n' >"$root/etc/group"
    mkdir -p "$root/home/loomgate" && chown 10001:10001 "$root/home/loomgate"
}

build_from_rootfs() { # image rootfs
    printf 'FROM scratch\nCOPY rootfs/ /\n' >"$2/../Containerfile"
    # --timestamp: the image's created time and every file in its layer get one fixed time (SOURCE_DATE_EPOCH when
    # ./loomgate dist sets it), so the same files make the same image, and dist's image archive is reproducible.
    $PODMAN build -q --format docker --timestamp "${SOURCE_DATE_EPOCH:-0}" -t "$1" "$2/.." >/dev/null
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! exists "$runtime_image"; then
    mkdir -p "$work/runtime/rootfs"
    glibc_into "$work/runtime/rootfs"
    build_from_rootfs "$runtime_image" "$work/runtime/rootfs"
fi

if ! exists "$build_image"; then
    r=$work/build/rootfs
    mkdir -p "$r/bin" "$r/usr/bin" "$r/root" "$r/opt"
    glibc_into "$r"
    cp "$BUSYBOX" "$r/bin/busybox"
    # No wget link: busybox's cannot check certificates (its shell still finds the applet, hence Maven below).
    for applet in $("$BUSYBOX" --list); do
        [[ $applet == busybox || $applet == wget ]] || ln -sf /bin/busybox "$r/bin/$applet"
    done
    cp -rL "$JDK" "$r/opt/java" # -L: Debian's packages link lib/security/cacerts to /etc/ssl
    # The Maven distribution, where mvnw looks before it downloads: busybox's shell runs its own wget applet even with
    # no link to it (`command -v wget` finds the applet), and that wget cannot make the TLS handshake Maven Central
    # asks for, so a build without ~/.m2 mounted (compose.yaml's, `podman build` by hand) failed to fetch Maven.
    dists=${MAVEN_USER_HOME:-$HOME/.m2}/wrapper/dists
    if [[ ! -d $dists/apache-maven-$maven_version ]]; then
        (cd "$ROOT" && JAVA_HOME=$JDK ./mvnw -q --version >/dev/null)
    fi
    mkdir -p "$r/root/.m2/wrapper"
    cp -r "$dists" "$r/root/.m2/wrapper/"
    for tool in java javac jar jlink jdeps; do ln -sf /opt/java/bin/$tool "$r/usr/bin/$tool"; done
    build_from_rootfs "$build_image" "$r"
fi
if [[ ${1:-} == --env ]]; then
    echo "export BUILD_BASE=$build_image RUNTIME_BASE=$runtime_image"
else
    echo "$build_image"
    echo "$runtime_image"
fi
