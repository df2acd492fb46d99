#!/bin/bash
# Inside a cluster made by slurm_cluster.sh: sbatch a batch script that runs
# an rdmach program with srun across the hosts, wait for it, and check what
# Slurm says of the job. Accounting without slurmdbd is off
# (AccountingStorageType=accounting_storage/none: sacct answers "Slurm
# accounting storage is disabled"), so the job's end is read from
# `scontrol show job` and from the job completion file
# (JobCompType=jobcomp/filetxt, in the cluster's state directory).
#
#   sbatch_check.sh MPI NODES TASKS EXPECT_REGEX -- STEP...
# Each STEP is one srun of the batch script: a string of srun arguments and
# the program with its own (split at spaces), run as `srun --mpi=MPI STEP`,
# in order; the script stops at the first that fails. MPI: pmi2 or pmix.
# Passes when the batch job exits 0, its output has one line matching
# EXPECT_REGEX per step, and
# both scontrol and the completion file say COMPLETED with exit code 0:0.
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
show=$(scontrol show job "$id")
echo "$show" | grep -q "JobState=COMPLETED" || fail "scontrol: job $id is not COMPLETED: $show"
echo "$show" | grep -Eq "(^| )ExitCode=0:0" || fail "scontrol: job $id exit code is not 0:0: $show"
echo "$show" | grep -q "NumNodes=$nodes " || fail "scontrol: job $id did not run on $nodes nodes: $show"
comp=$(grep "JobId=$id " "$RCH_SLURM_STATE/jobcomp")
echo "jobcomp: $comp"
echo "$comp" | grep -q "JobState=COMPLETED" || fail "job completion file: job $id not COMPLETED: $comp"
echo "$comp" | grep -q "ExitCode=0:0" || fail "job completion file: exit code is not 0:0: $comp"
echo "sbatch_check.sh: PASS (job $id COMPLETED, exit code 0:0, on $nodes nodes)"
