#!/bin/sh
# water: the particle level set's share of a water step (advect | project)
# on a drop-into-pool frame at 64^3 (SIZES="64 128" adds sizes).  The frame
# is the one after the first (the particles are already seeded, the drop
# is falling); advect runs with the particle level set (--pls on) and with
# the level set alone (--pls off: the same extrapolation, advection and
# redistancing, no particles); best of REPS runs (default 3).
cd "$(dirname "$0")/.." || exit 2
sizes=${SIZES:-64}
reps=${REPS:-3}
dir=bench/out/water
mkdir -p "$dir"
export PATH="$PWD/bin:$PATH"

now() { date +%s.%N; }
# best wall time of $reps runs of the command, seconds
best() {
	b=""
	i=0
	while [ $i -lt "$reps" ]; do
		t0=$(now)
		"$@" >/dev/null 2>&1 || { echo "bench: $* failed" >&2; exit 1; }
		t1=$(now)
		b=$(awk -v a="$t0" -v c="$t1" -v b="$b" 'BEGIN { d = c - a; print (b == "" || d < b) ? d : b }')
		i=$((i + 1))
	done
	echo "$b"
}

printf '%5s %10s %10s %10s %10s %9s %9s\n' n particles "pls on s" "pls off s" "project s" "pls/adv" "pls/step"
for n in $sizes; do
	mkprim pool --res "$n" -o "$dir/f0.slc" || exit 1
	advect --seed 1 "$dir/f0.slc" | project -o "$dir/f1.slc" || exit 1
	np=$(slcinfo "$dir/f1.slc" | awk '/^[0-9]+ particles .pls_/ { p = 1; next } p && $1 == "P" { s += $5; p = 0 } END { print s }')
	on=$(best advect --pls on "$dir/f1.slc" -o "$dir/on.slc")
	off=$(best advect --pls off "$dir/f1.slc" -o "$dir/off.slc")
	pr=$(best project "$dir/on.slc" -o "$dir/p.slc")
	awk -v n="$n" -v np="$np" -v on="$on" -v off="$off" -v pr="$pr" 'BEGIN {
		printf "%5d %10d %10.3f %10.3f %10.3f %8.0f%% %8.0f%%\n", n, np, on, off, pr,
		       100 * (on - off) / on, 100 * (on - off) / (on + pr) }'
	rm -f "$dir"/*.slc
done
echo "pls/adv: share of advect's time spent on the particles; pls/step: share of advect | project"
