#!/usr/bin/env bash
# Builds fastconv (installing what is missing) and runs its main job, `fastconv demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh build
exec build/tools/fastconv/fastconv demo "$@"
