#!/usr/bin/env bash
# Real-client check of the notebooks simrun exports: each one must pass
# nbformat's validator and run end to end under `jupyter nbconvert --execute`.
# Each redrawn chart must show what the pre-rendered one shows (the test compares them).
# Needs Debian's python3-nbformat, jupyter-nbconvert, python3-pandas,
# python3-matplotlib and python3-ipykernel (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

hint="apt-get install -y --no-install-recommends python3-nbformat jupyter-nbconvert python3-pandas python3-matplotlib python3-ipykernel"
if ! command -v jupyter >/dev/null; then
	echo "check-notebooks: jupyter not found; install it with: $hint" >&2
	exit 1
fi
py="${SIMRUN_PYTHON:-/usr/bin/python3}"
if ! "$py" -c 'import nbformat, pandas, matplotlib, ipykernel' 2>/dev/null; then
	echo "check-notebooks: $py lacks nbformat, pandas, matplotlib or ipykernel; install them with: $hint" >&2
	exit 1
fi
out=$(go test ./internal/export -run '^TestNotebooksExecute$' -count=1 -v 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if ! grep -q -- '--- PASS: TestNotebooksExecute' <<<"$out"; then
	echo "check-notebooks: TestNotebooksExecute did not run (skipped?)" >&2
	exit 1
fi
