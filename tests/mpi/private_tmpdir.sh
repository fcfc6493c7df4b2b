#!/bin/sh
# Runs a command (an mpirun) with a TMPDIR of its own, removed afterwards.
# Open MPI 4 keeps each job's session directory under $TMPDIR/ompi.<host>.<uid>, which every job
# on the machine creates and, when it ends, removes again; two mpiruns that start or end at once
# race on it ("A call to mkdir was unable to create the desired directory ... File exists",
# open-mpi/ompi#8510). ctest runs tests side by side, so each of ours gets a directory of its own.
dir=$(mktemp -d "${TMPDIR:-/tmp}/fastconv-mpi.XXXXXX") || exit 1
TMPDIR=$dir "$@"
status=$?
rm -rf "$dir"
exit $status
