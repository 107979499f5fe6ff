#!/usr/bin/env bash
# Makes stand-in base images for the Dockerfile's FROM lines from Debian packages, for a machine that reaches no
# container registry: each is a debootstrap'ed bookworm with what the real image brings (a JDK and Maven 3.9, Node 20,
# a JRE), tagged with the Dockerfile's name so the Dockerfile is built unchanged. An image already present (real or
# stand-in) is kept. Needs root, debootstrap and podman; prints what it does.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/podman-env.sh"

BUILD_BASE=maven:3.9-eclipse-temurin-17
HAWTIO_BASE=node:20-bookworm-slim
RUNTIME_BASE=eclipse-temurin:17-jre
MAVEN_VERSION=3.9.9
WORK="$PAYSYNC_IMAGE_HOME/bases"
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

say() { echo "stand-in-bases: $*"; }

missing=()
for image in "$BUILD_BASE" "$HAWTIO_BASE" "$RUNTIME_BASE"; do
    if podman image exists "$image"; then
        say "$image present, reused ($(podman image inspect --format '{{.Comment}}' "$image" | head -c 80))"
    else
        missing+=("$image")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
say "no registry here: making stand-ins for ${missing[*]} from Debian packages"
mkdir -p "$WORK"

# One minimal bookworm, copied for each image.
if [ ! -f "$WORK/minbase.tar" ]; then
    say "debootstrap --variant=minbase bookworm ($MIRROR)"
    rm -rf "$WORK/minbase"
    debootstrap --variant=minbase bookworm "$WORK/minbase" "$MIRROR" > "$WORK/debootstrap.log" 2>&1 \
        || { tail -20 "$WORK/debootstrap.log"; exit 1; }
    # The machine's apt sources (security updates, the same mirror) and the CA certificates its TLS proxy needs.
    cp /etc/apt/sources.list.d/debian.sources "$WORK/minbase/etc/apt/sources.list.d/" 2>/dev/null || true
    [ -f "$WORK/minbase/etc/apt/sources.list.d/debian.sources" ] && rm -f "$WORK/minbase/etc/apt/sources.list"
    tar -C "$WORK/minbase" -cf "$WORK/minbase.tar" .
    rm -rf "$WORK/minbase"
fi

# root folder, packages to install, extra shell run in the chroot
make_root() {
    local root=$1 packages=$2
    rm -rf "$root"
    mkdir -p "$root"
    tar -C "$root" -xf "$WORK/minbase.tar"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
    mount -t proc proc "$root/proc"
    trap "umount '$root/proc' 2>/dev/null || true" RETURN
    chroot "$root" /bin/sh -c "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq \
        && apt-get install -y -qq --no-install-recommends ca-certificates $packages > /dev/null \
        && update-ca-certificates > /dev/null && apt-get clean && rm -rf /var/lib/apt/lists/*" \
        > "$root.log" 2>&1 || { tail -30 "$root.log"; umount "$root/proc"; exit 1; }
}

import_root() {
    local root=$1 image=$2; shift 2
    local changes=()
    for c in "$@"; do changes+=(--change "$c"); done
    rm -f "$root/etc/resolv.conf"
    tar -C "$root" -c . | podman import -q "${changes[@]}" \
        --message "paysync stand-in from Debian bookworm packages" - "$image" > /dev/null
    rm -rf "$root"
    say "$image made ($(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%d MB", $1/1e6}'))"
}

PATH_ENV="ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

for image in "${missing[@]}"; do
    start=$(date +%s)
    case "$image" in
    "$RUNTIME_BASE")
        make_root "$WORK/runtime" "openjdk-17-jre-headless"
        import_root "$WORK/runtime" "$image" "$PATH_ENV" "ENV LANG=C.UTF-8" \
            "ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64" 'CMD ["jshell"]'
        ;;
    "$BUILD_BASE")
        make_root "$WORK/build" "openjdk-17-jdk-headless"
        tgz="$WORK/apache-maven-$MAVEN_VERSION-bin.tar.gz"
        [ -f "$tgz" ] || curl -fsSL -o "$tgz" \
            "https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/$MAVEN_VERSION/apache-maven-$MAVEN_VERSION-bin.tar.gz"
        mkdir -p "$WORK/build/usr/share/maven"
        tar -C "$WORK/build/usr/share/maven" --strip-components=1 -xzf "$tgz"
        ln -sf /usr/share/maven/bin/mvn "$WORK/build/usr/bin/mvn"
        import_root "$WORK/build" "$image" "$PATH_ENV" "ENV LANG=C.UTF-8" \
            "ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64" "ENV MAVEN_HOME=/usr/share/maven" 'CMD ["mvn"]'
        ;;
    "$HAWTIO_BASE")
        # Debian's own nodejs is 18, too old for the console's Vite: the machine's Node 20 and the npm installed
        # beside it, copied as they are (npm was updated in place, so its package's file list no longer matches).
        make_root "$WORK/hawtio" "python3-minimal libstdc++6"
        tar -C / -cf - usr/bin/node usr/lib/node_modules/npm | tar -C "$WORK/hawtio" -xf -
        ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$WORK/hawtio/usr/bin/npm"
        ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$WORK/hawtio/usr/bin/npx"
        chroot "$WORK/hawtio" /bin/sh -c "node --version && npm --version" > "$WORK/hawtio.versions" 2>&1 \
            || { cat "$WORK/hawtio.versions"; exit 1; }
        say "  node $(head -1 "$WORK/hawtio.versions"), npm $(tail -1 "$WORK/hawtio.versions")"
        import_root "$WORK/hawtio" "$image" "$PATH_ENV" "ENV LANG=C.UTF-8" \
            "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" 'CMD ["node"]'
        ;;
    esac
    say "  in $(( $(date +%s) - start )) s"
done
