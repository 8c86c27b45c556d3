#!/bin/sh
# The engines' default seccomp profiles (and Podman's containers.conf), out
# of Debian's packages, into DIR: docker.json, podman.json,
# containers.conf, versions (tests/data/containers/README.md says why
# these). Downloads the two packages with apt-get (installs nothing); a
# no-op when DIR has them.
#   scripts/container-profiles.sh DIR
set -eu
dir=$1
[ -s "$dir/docker.json" ] && [ -s "$dir/podman.json" ] && [ -s "$dir/containers.conf" ] && exit 0
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp" # apt's download user writes there
pkgs="golang-github-docker-docker-dev golang-github-containers-common"
(cd "$tmp" && apt-get download -q $pkgs >/dev/null 2>&1) ||
    { apt-get update -q >/dev/null 2>&1 && (cd "$tmp" && apt-get download -q $pkgs >/dev/null 2>&1); } ||
    { echo "container-profiles: apt-get download $pkgs failed" >&2; exit 1; }
one() { # PACKAGE PATH OUT
    dpkg-deb --fsys-tarfile "$tmp/$1"_*.deb | tar -xOf - ".$2" >"$dir/$3.tmp" && [ -s "$dir/$3.tmp" ] &&
        mv "$dir/$3.tmp" "$dir/$3"
}
one golang-github-docker-docker-dev /usr/share/gocode/src/github.com/docker/docker/profiles/seccomp/default.json docker.json
one golang-github-containers-common /usr/share/containers/seccomp.json podman.json
one golang-github-containers-common /usr/share/containers/containers.conf containers.conf
for p in $pkgs; do dpkg-deb -f "$tmp/$p"_*.deb Package Version | tr '\n' ' '; echo; done >"$dir/versions"
