#!/usr/bin/env bash
# Runs every side-by-side benchmark; each writes bench/results/<name>.md (and .csv where it has a table).
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for script in bench/*.py; do
    [[ $script == bench/corpus.py ]] && continue  # its own target: make corpus
    echo "== $script"
    .venv/bin/python "$script" || { echo "!! $script failed"; status=1; }
done
exit $status
