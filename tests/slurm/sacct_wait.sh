# Sourced by the checks run in a cluster with accounting: sacct_wait JOBID
# waits (at most 30 s) until sacct has the job in a final state. slurmctld
# sends a job's end to slurmdbd after the job has ended, so right after
# `sbatch --wait` or scancel returns sacct may still say RUNNING, or not
# know the job yet.
sacct_wait() {
    local t st
    for ((t = 0; t < 300; t++)); do
        st=$(sacct -j "$1" -X -n -P -o State 2>/dev/null)
        case $st in
        "" | PENDING | RUNNING | REQUEUED | RESIZING | SUSPENDED) sleep 0.1 ;;
        *) return 0 ;;
        esac
    done
    return 1
}
