#!/bin/sh
# kill_rank.sh RANK CKPT_DIR STEPS COMMAND...: run under mpirun. The process
# of rank RANK runs COMMAND and is killed (SIGKILL) as soon as CKPT_DIR holds
# a complete checkpoint index of one of STEPS (space-separated), chosen at
# random; the other ranks run COMMAND as it is. The chosen step is written
# to CKPT_DIR.kill-step.
rank=$1
dir=$2
steps=$3
shift 3
me=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}
if [ "$me" != "$rank" ]; then
  exec "$@"
fi
set -- "$@"
count=$(echo $steps | wc -w)
pick=$(( $(od -An -N2 -tu2 /dev/urandom) % count + 1 ))
step=$(echo $steps | cut -d' ' -f$pick)
echo "$step" > "$dir.kill-step"
"$@" &
pid=$!
index=$(printf '%s/step-%08d.safetensors.index.json' "$dir" "$step")
while kill -0 "$pid" 2>/dev/null; do
  if [ -e "$index" ]; then
    kill -9 "$pid"
    break
  fi
  sleep 0.005
done
wait "$pid"
