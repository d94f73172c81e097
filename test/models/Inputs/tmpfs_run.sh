#!/bin/sh
# tmpfs_run.sh DIR KB COMMAND...: runs COMMAND in a private mount namespace
# where DIR is a tmpfs of KB kilobytes; the mount ends with COMMAND.
dir=$1
kb=$2
shift 2
mkdir -p "$dir"
exec unshare -rm sh -c 'mount -t tmpfs -o size="$1"k tmpfs "$2" && shift 2 && exec "$@"' sh "$kb" "$dir" "$@"
