#!/bin/sh
# full_disk.sh DIR COMMAND...: inside a mount namespace whose DIR is a small
# tmpfs (see %tmpfs_run), runs COMMAND --checkpoint-dir DIR/ckpt and prints
# its log, its exit status and the files it left; then resumes the newest
# checkpoint it left for 4 steps and prints that run's exit status.
dir=$1
shift
"$@" --checkpoint-dir "$dir/ckpt" > /dev/null 2> "$dir/../full-disk.log"
rc=$?
grep -E "saved|error" "$dir/../full-disk.log"
echo "exit $rc"
echo "files: $(ls -A "$dir/ckpt" | tr '\n' ' ' | sed 's/ $//')"
last=$(ls "$dir/ckpt" | tail -1)
"$@" --steps 4 --resume "$dir/ckpt/$last" > /dev/null 2> "$dir/../resume.log"
rc=$?
grep resumed "$dir/../resume.log"
echo "resume exit $rc"
