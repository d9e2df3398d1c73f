#!/bin/bash
# A simrun sweep as a Slurm job array: task I of N runs shard I/N of the grid
# and writes results/part-I.json. Submit it, then merge when all tasks are done:
#
#   jobid=$(sbatch --parsable docs/examples/sweep-slurm.sh)
#   sbatch --dependency=afterok:$jobid --wrap 'simrun merge results/part-*.json -o results/sweep.json'
#
# The merged result is byte-identical to the unsharded sweep. Change --array
# to change the number of shards; nothing else needs to follow.
#SBATCH --job-name=simrun-sweep
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=512M
#SBATCH --time=01:00:00
#SBATCH --output=results/%x-%a.log
set -euo pipefail

index=${SLURM_ARRAY_TASK_ID:?submit with sbatch --array, or set SLURM_ARRAY_TASK_ID}
shards=${SLURM_ARRAY_TASK_COUNT:?submit with sbatch --array, or set SLURM_ARRAY_TASK_COUNT}
out=${RESULTS:-results}
mkdir -p "$out"

# EXTRA_FLAGS, e.g. "--duration 600s --replications 5", is passed through.
# shellcheck disable=SC2086
simrun sweep demo/mmc --case mm4 \
  --set workload.demo.servers=4,5,6,8 \
  --set workload.demo.arrival_rate=1k,2k,3k \
  --shard "$index/$shards" \
  --workers "${SLURM_CPUS_PER_TASK:-0}" \
  ${EXTRA_FLAGS:-} \
  -o "$out/part-$index.json"
