#!/bin/sh
# fails_in_time.sh SECONDS COMMAND...: runs COMMAND under `timeout SECONDS`
# and succeeds only when it ended by itself with an error. Its success, and
# the time bound running out (timeout's exit status 124), are failures, so a
# hang cannot pass for the error a test expects. (137, a command killed by
# SIGKILL, is the command's own error: mpirun's when a process was killed.)
limit=$1
shift
timeout "$limit" "$@"
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "fails_in_time.sh: '$*' succeeded; an error was expected" >&2
  exit 1
fi
if [ "$rc" -eq 124 ]; then
  echo "fails_in_time.sh: '$*' was still running after $limit s" >&2
  exit 1
fi
exit 0
