#!/bin/bash
# Paired start-up timing of two commands, outside `npm run bench` (how the closing notes' side-by-side
# figures of the old and new runtimes and of the meow patch were taken):
#   bash bench/paired-start.sh ROUNDS CMD_A... -- CMD_B...
# e.g. bash bench/paired-start.sh 41 node_modules/.bin/node dist/hfx.js --version -- node_modules/.bin/node -e 0
# Runs 3 warm-ups of each, then ROUNDS rounds of A and B back to back (trading places every other round),
# each timed by bash's `time` (wall, user + system), NODE_EXTRA_CA_CERTS unset; prints the medians of A, of B
# and of the per-round differences A − B, in ms.
unset NODE_EXTRA_CA_CERTS
R=$1; shift; A=(); while [ "$1" != "--" ]; do A+=("$1"); shift; done; shift; B=("$@")
TIMEFORMAT="%3R %3U %3S"
cpu(){ { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{printf "%d %d\n", $1*1000, ($2+$3)*1000}'; }
for i in 1 2 3; do "${A[@]}" >/dev/null 2>&1; "${B[@]}" >/dev/null 2>&1; done
for i in $(seq $R); do
 if [ $((i%2)) = 0 ]; then a=$(cpu "${A[@]}"); b=$(cpu "${B[@]}"); else b=$(cpu "${B[@]}"); a=$(cpu "${A[@]}"); fi
 echo "$a $b"
done | python3 -c "
import sys,statistics as st
r=[list(map(int,l.split())) for l in sys.stdin if l.strip()]
m=lambda v: st.median(v)
print('n=%d wall A %d B %d diff %d | cpu A %d B %d diff %d (ms medians)'%(len(r),m([x[0] for x in r]),m([x[2] for x in r]),m([x[0]-x[2] for x in r]),m([x[1] for x in r]),m([x[3] for x in r]),m([x[1]-x[3] for x in r])))"
