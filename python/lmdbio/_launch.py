"""The refusal of a job that a launcher without MPI started (torchrun, or
srun without --mpi): said once per job, not once per process.

Every process of such a job fails the same way at lmdbio's first call, and a
traceback from each of them buries the one line that says how to launch the
job. So the job's first process (RANK 0, or srun's task 0) prints that line
and every process exits with the launch error's status, the others without
a word."""

import os
import sys
import time

# How long a process other than the job's first waits before it exits: a
# launcher ends the job at the first process that fails, which must not be
# one that says nothing while the first has not spoken yet (as lmdbio's own
# commands do, see internal/startup's Grace).
_GRACE_SECONDS = 5.0


def _number(name):
    try:
        return int(os.environ.get(name, ""))
    except ValueError:
        return None


def several_without_mpi():
    """Whether the environment says a launcher without MPI started this as one
    of several processes: torchrun's RANK and WORLD_SIZE, or srun's task
    variables. A learner of lmdbio run --agent is not one."""
    if os.environ.get("LMDBIO_AGENT_SOCKET"):
        return False
    rank, size = _number("RANK"), _number("WORLD_SIZE")
    if (rank or 0) > 0 or (size or 0) > 1:
        return True
    tasks = _number("SLURM_STEP_NUM_TASKS") or _number("SLURM_NTASKS") or 0
    return bool(os.environ.get("SLURM_STEP_ID")) and tasks > 1


def first_process():
    """Whether this is the job's first process: RANK 0 (torchrun), else
    srun's task 0."""
    rank = _number("RANK")
    if rank is None:
        rank = _number("SLURM_PROCID")
    return not rank


def refuse(error):
    """Ends the process for a launch error of a job that a launcher without
    MPI started: the job's first process prints the error's line, the others
    wait a moment and exit quietly, all with the error's exit status.
    SystemExit, not the error: no traceback, and the same status that
    `python3 -m lmdbio` gives."""
    if first_process():
        print(f"lmdbio: {error}", file=sys.stderr, flush=True)
    else:
        time.sleep(_GRACE_SECONDS)
    raise SystemExit(error.exit_status)
