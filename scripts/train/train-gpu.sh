#!/usr/bin/env bash
# Train several model sizes at once on one CUDA GPU from packed data (pack.py data), and pack each one's weights for
# the trip back (pack.py weights). For a GPU machine with PyTorch and no Node; export and evaluation happen where the
# project is (pack.py unweights, then export-gguf.ts and eval-model.ts).
#
#   scripts/train/train-gpu.sh DATA.xz OUT_DIR MINUTES "name:dim:layers:heads:ff:lr ..." [extra train.py args]
#
# MINUTES is each run's training budget (train.py --fit-minutes: it times a few steps, then trains that many steps,
# and prints the count so the run can be repeated with --steps); a run that finds itself slower than it timed stops at
# 1.12 × MINUTES all the same (--minutes), so the whole script ends in a known time.
set -euo pipefail
data=$1 out=$2 minutes=$3 sizes=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
work=${WORK:-/tmp/toolbridge-train}
mkdir -p "$work" "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
"$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'
t0=$(date +%s)
"$py" "$here/pack.py" undata "$data" "$work/data"
echo "unpacked data in $(( $(date +%s) - t0 )) s"
pids=()
for spec in $sizes; do
  IFS=: read -r name dim layers heads ff lr <<<"$spec"
  PYTHONUNBUFFERED=1 "$py" "$here/train.py" --device "${DEVICE:-cuda}" --data "$work/data" --out "$work/$name" \
    --fit-minutes "$minutes" --minutes "$(awk "BEGIN{print $minutes*1.12+0.2}")" --save-every 1000 \
    --dim "$dim" --layers "$layers" --heads "$heads" --ff "$ff" --lr "$lr" "$@" >"$out/$name.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for spec in $sizes; do
  name=${spec%%:*}
  tail -n 3 "$out/$name.log"
  if [ -f "$work/$name/manifest.json" ]; then "$py" "$here/pack.py" weights "$work/$name" "$out/$name"; fi
done
ls -l "$out"
echo "all done in $(( $(date +%s) - t0 )) s"
exit $status
