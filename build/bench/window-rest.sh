#!/bin/bash
# The window's memory at rest: each binary opens the window under Xvfb on a
# fresh data folder, and 20 s after the start the Go process's resident
# memory and that of its WebKit processes (web, network) are read from
# /proc (RSS; PSS counts pages shared between them once). Rounds alternate
# the binaries, so the machine's load falls on each alike. Podman's service,
# if the first run starts one, is not counted (it is not the window's).
#
#   build/bench/window-rest.sh ROUNDS "NAME=[env VAR=VALUE…] path/to/rehome-window" …
set -eu
rounds=$1; shift
settle=${REHOME_BENCH_SETTLE:-20}
mib() { echo $(( ${1:-0} / 1024 )); }
kb() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/$3" 2>/dev/null || echo 0; }
tree() { # pid and its descendants
	echo "$1"
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do tree "$c"; done
}
measure() { # name bin → one line: name go_rss go_pss total_rss total_pss
	local name=$1 bin=$2 home disp pid xvfb
	home=$(mktemp -d)
	disp=:$(( 90 + RANDOM % 500 ))
	Xvfb "$disp" -screen 0 1280x1024x24 -nolisten tcp </dev/null >/dev/null 2>&1 & xvfb=$!
	sleep 1
	DISPLAY=$disp REHOME_HOME=$home XDG_RUNTIME_DIR=$home $bin </dev/null >"$home/out.log" 2>&1 & pid=$!
	sleep "$settle"
	local grss gpss trss=0 tpss=0
	grss=$(kb "$pid" VmRSS status); gpss=$(kb "$pid" Pss smaps_rollup)
	for p in $(tree "$pid"); do
		comm=$(cat /proc/"$p"/comm 2>/dev/null || true)
		case "$comm" in rehome*|WebKit*) ;; *) continue ;; esac
		trss=$(( trss + $(kb "$p" VmRSS status) ))
		tpss=$(( tpss + $(kb "$p" Pss smaps_rollup) ))
	done
	echo "$name $(mib "$grss") $(mib "$gpss") $(mib "$trss") $(mib "$tpss")"
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
	kill "$xvfb" 2>/dev/null; wait "$xvfb" 2>/dev/null || true
	rm -rf "$home"
}
results=$(mktemp)
for r in $(seq "$rounds"); do
	for nb in "$@"; do measure "${nb%%=*}" "${nb#*=}" >>"$results"; done
done
printf '| binary | rounds | Go RSS MiB | Go PSS MiB | window RSS MiB (Go + WebKit) | window PSS MiB |\n|---|---|---|---|---|---|\n'
for nb in "$@"; do
	n=${nb%%=*}
	awk -v n="$n" '$1 == n { c++; for (i = 2; i <= 5; i++) { s[i] += $i; if (!(i in lo) || $i < lo[i]) lo[i] = $i; if ($i > hi[i]) hi[i] = $i } }
		END { printf "| %s | %d |", n, c; for (i = 2; i <= 5; i++) printf " %d (%d–%d) |", s[i]/c, lo[i], hi[i]; print "" }' "$results"
done
rm -f "$results"
