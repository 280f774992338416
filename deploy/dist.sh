#!/usr/bin/env bash
# Makes the release folder dist/loomgate-<version>/ (run it as `./loomgate dist`, which passes the arguments):
#   loomgate-gateway-<version>.jar     the gateway (serve, validate, demo)
#   loomgate-<version>.jar             every command (the gateway and the lab)
#   loomgate-<version>-image.oci.tar   the container image localhost/loomgate:<version> (podman save --format oci-archive)
#   loomgate-<version>.cdx.json        CycloneDX SBOM of what the jars bundle (cyclonedx-maven-plugin) and of what the
#                                      image adds: its JRE, glibc and other OS packages (deploy/image-sbom.py)
#   THIRD-PARTY.txt                    every library loomgate.jar bundles and its license (license-maven-plugin,
#                                      checked at build; each jar carries its own list as META-INF/THIRD-PARTY.txt)
#   THIRD-PARTY-gateway.txt            the same for loomgate-gateway.jar (and the image, which runs it)
#   LICENSE, NOTICE, CHANGELOG.md
#   SHA256SUMS                         sha256sum -c SHA256SUMS checks the rest
# Reproducible: the jars and the SBOM take the POM's project.build.outputTimestamp, and the image is built with the
# same time (podman build --timestamp: the image's created time and every file in its own layers) from bases made
# with it too, so two runs on the same commit give the same SHA256SUMS (docs/deployment.md, "The release") but for
# the image's: its AOT cache differs from build to build (the training run loads and links a slightly different set
# of classes, and JDK 25's cache assembly is not deterministic even from one training's configuration; the jar's time,
# which the cache records, is SOURCE_DATE_EPOCH). A run that finds a previous run's folder checks that its image
# differs from that one only there (deploy/compare-image-archives.py).
#   deploy/dist.sh <commit> <version> <outputTimestamp> [maven args]   (not -o: makeBom needs online mode)
# PODMAN (default "podman --runtime runc") and JDK (the build base's JDK) as in build-local-bases.sh.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
commit=$1 version=$2 timestamp=$3
shift 3
PODMAN=${PODMAN:-podman --runtime runc}
export PODMAN
[[ -n $version && -n $timestamp ]] || { echo "dist: no version or outputTimestamp in pom.xml" >&2; exit 1; }
epoch=$(date -u -d "$timestamp" +%s)
export SOURCE_DATE_EPOCH=$epoch
out=$HERE/dist/loomgate-$version
target=$HERE/loomgate-cli/target
image=localhost/loomgate:$version
[[ $commit == *-dirty ]] && echo "dist: the tree differs from its commit: the jars record $commit" >&2

# 1. The jars, the license check and list, the SBOM: a clean build (nothing a previous build left behind).
echo "dist: building $version ($commit)" >&2
(cd "$HERE" && ./mvnw -B -q -Pdist -DskipTests "-Dloomgate.commit=$commit" "$@" clean package)

# 2. The image, from bases made on this machine (no registry needed), with the jars built inside it as the
# Dockerfile does, offline against the local Maven repository.
echo "dist: building the image $image" >&2
bases=$("$HERE/deploy/container/build-local-bases.sh")
build_base=$(sed -n 1p <<<"$bases") runtime_base=$(sed -n 2p <<<"$bases")
$PODMAN build -q --format docker --layers=false --timestamp "$epoch" -v "$HOME/.m2:/root/.m2:O" \
    --build-arg "BUILD_BASE=$build_base" --build-arg "RUNTIME_BASE=$runtime_base" \
    --build-arg MAVEN_ARGS=-o --build-arg "LOOMGATE_COMMIT=$commit" --build-arg "SOURCE_DATE_EPOCH=$epoch" \
    -t "$image" "$HERE" >/dev/null

# The image must carry the very jar the folder ships: the Dockerfile's build and this one agree byte for byte.
work=$(mktemp -d)
cid=""
trap '[[ -n $cid ]] && $PODMAN rm -f "$cid" >/dev/null 2>&1; rm -rf "$work"' EXIT
cid=$($PODMAN create "$image")
$PODMAN cp "$cid:/opt/loomgate/loomgate.jar" "$work/image-gateway.jar"
if ! cmp -s "$work/image-gateway.jar" "$target/loomgate-gateway.jar"; then
    echo "dist: the image's jar differs from $target/loomgate-gateway.jar (a build that is not reproducible?)" >&2
    exit 1
fi

# The image's own components (its JRE, its glibc and the other operating-system packages) into the SBOM, read from
# the image itself (deploy/image-sbom.py says how): the filesystem as exported, the JRE's properties as it runs.
mkdir "$work/rootfs"
$PODMAN export "$cid" | tar -x -C "$work/rootfs" --no-same-owner --exclude='dev/*'
$PODMAN run --rm --health-cmd none --ulimit nofile=20000:20000 --ulimit nproc=4096:4096 --entrypoint /opt/loomgate/jre/bin/java "$image" -XshowSettings:properties -version \
    2>"$work/java-properties.txt" >/dev/null
cp "$target/loomgate-$version.cdx.json" "$work/sbom.json"
python3 "$HERE/deploy/image-sbom.py" "$work/sbom.json" "$work/rootfs" "$work/java-properties.txt"

# 3. The folder. A previous run's image archive is kept aside to check this one against (step 4).
previous=""
if [[ -f $out/loomgate-$version-image.oci.tar ]]; then
    previous=$work/previous-image.oci.tar
    mv "$out/loomgate-$version-image.oci.tar" "$previous"
fi
rm -rf "$out"
mkdir -p "$out"
cp "$target/loomgate-gateway.jar" "$out/loomgate-gateway-$version.jar"
cp "$target/loomgate.jar" "$out/loomgate-$version.jar"
cp "$work/sbom.json" "$out/loomgate-$version.cdx.json"
cp "$target/third-party/THIRD-PARTY.txt" "$out/THIRD-PARTY.txt"
cp "$target/third-party/gateway/THIRD-PARTY.txt" "$out/THIRD-PARTY-gateway.txt"
cp "$HERE/LICENSE" "$HERE/NOTICE" "$HERE/CHANGELOG.md" "$out/"
$PODMAN save -q --format oci-archive -o "$work/image.tar" "$image"
# podman writes the archive's own tar headers with the time of the save: repack it with fixed times, owners and
# order (the OCI layout inside, and so the image, is unchanged), so the same image gives the same archive.
mkdir "$work/layout"
tar -xf "$work/image.tar" -C "$work/layout"
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    -cf "$out/loomgate-$version-image.oci.tar" -C "$work/layout" .
(cd "$out" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort \
    | xargs sha256sum -- >SHA256SUMS)
# 4. The image archive is the one file whose checksum changes from run to run: its AOT cache holds a training run's
# profiles. Against the previous run's, everything else in it must be the same (deploy/compare-image-archives.py).
if [[ -n $previous ]]; then
    echo "dist: comparing the image with the previous run's, all but the AOT cache" >&2
    python3 "$HERE/deploy/compare-image-archives.py" "$previous" "$out/loomgate-$version-image.oci.tar" >&2
fi
echo "dist: $out" >&2
cat "$out/SHA256SUMS"
