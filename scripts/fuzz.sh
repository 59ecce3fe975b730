#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 30s).
#
# Go 1.26's fuzz coordinator can report a bare "context deadline exceeded" failure when the
# -fuzztime deadline falls while a worker is between inputs (go.dev/issue/75804, fixed in Go
# 1.27). That failure has no failing input behind it. A real failure always writes its input
# to the package's testdata/fuzz directory and says so; only that, or any other failure, fails
# this script.
set -uo pipefail

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-30s}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for pkg in $($GO list ./...); do
	for target in $($GO test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz'); do
		echo "== $pkg $target"
		if $GO test -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" "$pkg" 2>&1 | tee "$out"; then
			continue
		fi
		if grep -q 'Failing input written to' "$out" ||
			[ "$(grep -c -- '^--- FAIL' "$out")" != 1 ] ||
			! grep -qx '    context deadline exceeded' "$out"; then
			exit 1
		fi
		echo "note: $target stopped on the coordinator's deadline race (go.dev/issue/75804); no failing input"
	done
done
