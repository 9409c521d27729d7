#!/bin/sh
# water: the particle level set's share of a water step (advect | project)
# on a drop-into-pool frame at 64^3 and 128^3 (SIZES="64" for one size).
# The frame is the one after the first (the particles are already seeded,
# the drop is falling); advect runs with the particle level set (--pls on)
# and with the level set alone (--pls off: the same extrapolation,
# advection and redistancing, no particles); best of REPS runs (default 3).
#
# The machine is shared: the shares are computed from CPU seconds (user +
# system of the process, which other processes do not inflate); wall-clock
# seconds are shown beside them.
cd "$(dirname "$0")/.." || exit 2
sizes=${SIZES:-64 128}
reps=${REPS:-3}
dir=bench/out/water
mkdir -p "$dir"
export PATH="$PWD/bin:$PATH"
# idle OpenMP threads sleep instead of spinning, so CPU time is work
OMP_WAIT_POLICY=passive
export OMP_WAIT_POLICY
[ -x /usr/bin/time ] || { echo "water.sh: needs /usr/bin/time" >&2; exit 1; }

# best wall and best CPU seconds of $reps runs of the command: "WALL CPU"
best() {
	bw="" bc=""
	i=0
	while [ $i -lt "$reps" ]; do
		/usr/bin/time -f '%e %U %S' -o "$dir/time" "$@" >/dev/null 2>&1 ||
			{ echo "bench: $* failed" >&2; exit 1; }
		r=$(awk -v bw="$bw" -v bc="$bc" '{ w = $1; c = $2 + $3
			if (bw != "" && bw < w) w = bw; if (bc != "" && bc < c) c = bc
			print w, c }' "$dir/time")
		bw=${r% *} bc=${r#* }
		i=$((i + 1))
	done
	echo "$bw $bc"
}

printf '%5s %10s %9s %9s %9s %9s %9s %9s %9s %9s\n' n particles \
	"on wall" "on cpu" "off wall" "off cpu" "prj wall" "prj cpu" "pls/adv" "pls/step"
for n in $sizes; do
	mkprim pool --res "$n" -o "$dir/f0.slc" || exit 1
	advect --seed 1 "$dir/f0.slc" | project -o "$dir/f1.slc" || exit 1
	np=$(slcinfo "$dir/f1.slc" | awk '/^[0-9]+ particles .pls_/ { p = 1; next } p && $1 == "P" { s += $5; p = 0 } END { print s }')
	on=$(best advect --pls on "$dir/f1.slc" -o "$dir/on.slc") || exit 1
	off=$(best advect --pls off "$dir/f1.slc" -o "$dir/off.slc") || exit 1
	pr=$(best project "$dir/on.slc" -o "$dir/p.slc") || exit 1
	echo "$n $np $on $off $pr" | awk '{
		printf "%5d %10d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %8.0f%% %8.0f%%\n", $1, $2,
		       $3, $4, $5, $6, $7, $8, 100 * ($4 - $6) / $4, 100 * ($4 - $6) / ($4 + $8) }'
	rm -f "$dir"/*.slc "$dir/time"
done
echo "pls/adv: share of advect's CPU time spent on the particles; pls/step: share of advect | project"
