#!/bin/sh
# scripts/build-deb.sh [SRCDIR [OUT.deb]]: builds ebb's Debian package from a clean copy of the
# source tree (the tracked files when SRCDIR is a git checkout, else the tree without build
# directories), so a developer's own build directories are neither used nor touched.
# Needs the build dependencies of debian/control (scripts/install-deps.sh installs them).
set -eu
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
out=${2:-}
command -v dpkg-buildpackage >/dev/null ||
  { echo "build-deb: dpkg-buildpackage not found (apt-get install dpkg-dev debhelper)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/ebb-deb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/ebb"
if [ -d "$src/.git" ] || [ -f "$src/.git" ]; then
  (cd "$src" && git ls-files -z | xargs -0 tar -cf -) | tar -xf - -C "$tmp/ebb"
else
  (cd "$src" && tar --exclude='./build*' --exclude='./_build' --exclude='./_inst' \
    --exclude='./debian/build' --exclude='./debian/ebb' --exclude='./debian/.debhelper' \
    --exclude='./autom4te.cache' -cf - .) | tar -xf - -C "$tmp/ebb"
fi
chmod -R u+w "$tmp/ebb"
(cd "$tmp/ebb" && dpkg-buildpackage -us -uc -b -j2 >"$tmp/build.log" 2>&1) ||
  { tail -n 40 "$tmp/build.log" >&2; echo "build-deb: dpkg-buildpackage failed" >&2; exit 1; }
deb=$(ls "$tmp"/ebb_*.deb)
if [ -n "$out" ]; then
  mkdir -p "$(dirname "$out")"
  cp "$deb" "$out"
  echo "build-deb: $out"
else
  cp "$tmp"/*.deb "$src/.."
  echo "build-deb: $(cd "$src/.." && pwd)/$(basename "$deb")"
fi
