#!/bin/bash
# Remakes the lab dumps from loop devices (root, util-linux 2.38's lsblk, a carve
# binary as $CARVE): one dump per topology with `carve devices --dump`, its *.cols
# cases, and lsblk 2.38's `--sysroot` output for each as the expected file.
# Usage: make.sh NAME "COLS-NAME=COLUMNS ..." DEVICE...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=$1 cases=$2
shift 2
work=$(mktemp -d /tmp/carve-lab-XXXXXX)
trap 'rm -rf "$work"' EXIT
"${CARVE:-carve}" devices --dump "$work/$name" "$@"
mkdir -p "$here/dumps" "$here/expected"
for item in $cases; do
    echo "${item#*=}" > "$work/$name/${item%%=*}.cols"
    LANG=POSIX LANGUAGE=POSIX LC_ALL=POSIX lsblk --sysroot "$work/$name" --output "${item#*=}" \
        > "$here/expected/lsblk-$name-${item%%=*}"
done
tar --owner=0 --group=0 -C "$work" -cJf "$here/dumps/$name.tar.xz" "$name"
