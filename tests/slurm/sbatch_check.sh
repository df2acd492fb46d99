#!/bin/bash
# Inside a cluster made by slurm_cluster.sh --accounting: sbatch a batch
# script that runs an rdmach program with srun across the hosts, wait for
# it, and check what Slurm's accounting (slurmdbd, read with sacct) says of
# the job and of each of its steps.
#
#   sbatch_check.sh MPI NODES TASKS EXPECT_REGEX -- STEP...
# Each STEP is one srun of the batch script: a string of srun arguments and
# the program with its own (split at spaces), run as `srun --mpi=MPI STEP`,
# in order; the script stops at the first that fails. MPI: pmi2 or pmix.
# Passes when the batch job exits 0, its output has one line matching
# EXPECT_REGEX per step, and sacct says the job COMPLETED with exit code
# 0:0 on NODES nodes, and so did each step <job>.0, <job>.1, ...
set -u
mpi=$1 nodes=$2 tasks=$3 expect=$4
shift 5
# in the cluster's state: every host sees it (each has a /tmp of its own)
dir=$(mktemp -d "$RCH_SLURM_STATE/sbatch.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT
{
    echo "#!/bin/bash"
    for step in "$@"; do
        echo "srun --mpi=$mpi $step || exit \$?"
    done
} >"$dir/job.sh"
cat "$dir/job.sh"
fail() { echo "sbatch_check.sh: FAIL: $*"; exit 1; }

out=$(sbatch --wait --parsable -N "$nodes" -n "$tasks" -o "$dir/out" "$dir/job.sh")
rc=$?
cat "$dir/out"
id=${out%%;*}
echo "sbatch_check.sh: job $id, sbatch --wait exit status $rc"
[ "$rc" -eq 0 ] || fail "sbatch --wait exited $rc"
n=$(grep -Ec -- "$expect" "$dir/out")
[ "$n" -eq $# ] || fail "the job's output has $n line(s) matching '$expect', expected $# (one per step)"
. "$(dirname "$0")/sacct_wait.sh"
sacct_wait "$id" || fail "sacct: job $id did not reach a final state within 30 s: $(sacct -j "$id" -X -n -P -o State)"
row=$(sacct -j "$id" -n -X -P -o State,ExitCode,NNodes)
echo "sacct: job $id: $row"
[ "$row" = "COMPLETED|0:0|$nodes" ] || fail "sacct: job $id is '$row', expected 'COMPLETED|0:0|$nodes'"
steps=$(sacct -j "$id" -n -P -o JobID,State,ExitCode | grep -E "^$id\.[0-9]+\|")
echo "$steps" | sed 's/^/sacct: step /'
for ((k = 0; k < $#; k++)); do
    echo "$steps" | grep -qx "$id\.$k|COMPLETED|0:0" || fail "sacct: step $id.$k is not COMPLETED with exit code 0:0"
done
n=$(echo "$steps" | grep -c .)
[ "$n" -eq $# ] || fail "sacct lists $n step(s) of job $id, expected $#"
echo "sbatch_check.sh: PASS (job $id and its $# step(s) COMPLETED in sacct, exit code 0:0, on $nodes nodes)"
