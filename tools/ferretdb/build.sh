#!/usr/bin/env bash
# Builds FerretDB, the MongoDB wire-protocol server the mongodb sandbox runs
# (no MongoDB server package exists for Debian), from its Go module at the
# pinned version. The module's zip leaves out build/version/version.txt,
# which FerretDB's build writes from git and embeds; it is written here
# from the pinned version so that buildInfo reports it.
set -euo pipefail
out=${1:?usage: build.sh OUTPUT}
version=v1.24.2
go=${GO:-go}
case $out in /*) ;; *) out=$PWD/$out ;; esac
src=$("$go" mod download -json "github.com/FerretDB/FerretDB@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "could not download github.com/FerretDB/FerretDB@$version from the Go module proxy" >&2; exit 1; }
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
cp -r "$src"/. "$work"
chmod -R u+w "$work"
echo "$version" > "$work/build/version/version.txt"
mkdir -p "$(dirname "$out")"
(cd "$work" && "$go" build -trimpath -o "$out.tmp" ./cmd/ferretdb)
mv "$out.tmp" "$out"
echo "built $out (FerretDB $version)"
