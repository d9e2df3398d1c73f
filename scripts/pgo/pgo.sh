#!/usr/bin/env bash
# Regenerates cmd/simrun/default.pgo, the CPU profile `go build` uses for
# profile-guided optimisation of the simrun binary (docs/kernel.md, "Profile-
# guided optimisation"). It runs the three published studies' scenarios
# (the 600 s binlog study, the replication appliers, the bulk-load ladder)
# with --cpuprofile, merges the profiles and shortens every path of this
# machine in them to a file name (sanitize.py). Rerun it after a change
# that moves the hot paths; the results do not depend on the profile.
#   bash scripts/pgo/pgo.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/simrun-pgo-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -trimpath -o "$work/simrun" ./cmd/simrun
profiles=()
for s in binlog/innodb-vs-file-120mbs replication/csa-vs-mta bulkload/ladder; do
	p="$work/$(basename "$s").pprof"
	"$work/simrun" run "scenarios/$s.toml" --cpuprofile "$p" -o "$work/$(basename "$s").json" >/dev/null
	profiles+=("$p")
done
go tool pprof -proto "${profiles[@]}" >"$work/merged.pprof" 2>/dev/null
python3 scripts/pgo/sanitize.py "$work/merged.pprof" cmd/simrun/default.pgo
echo "pgo.sh: wrote cmd/simrun/default.pgo"
