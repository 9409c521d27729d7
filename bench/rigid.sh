#!/bin/sh
# rigid: what a rigid body costs a water step at 64^3 (SIZES="64 128" adds
# sizes): advect (level set only, --pls off, to keep the particles' noise
# out) and project on a pool with a dynamic ball of radius 0.15 falling
# into it (frame 1), against the same frame without the ball's records;
# best CPU time of REPS runs (default 3) on one thread.  The ball's own cost in advect is the
# resampling of rigid_phi from rigid_phi0 after every substep plus the
# union with the solid the fluid sees; in project, its volume fractions
# and the coupling (batty2007 §3).
cd "$(dirname "$0")/.." || exit 2
sizes=${SIZES:-64}
reps=${REPS:-3}
dir=bench/out/rigid
mkdir -p "$dir"
export PATH="$PWD/bin:$PATH"

# best CPU time (user + system) of $reps runs of the command on one
# thread, seconds: steadier than wall time on a shared machine
best() {
	b=""
	i=0
	while [ $i -lt "$reps" ]; do
		d=$(OMP_NUM_THREADS=1 /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 |
			awk '{ print $1 + $2 }') || { echo "bench: $* failed" >&2; exit 1; }
		b=$(awk -v d="$d" -v b="$b" 'BEGIN { print (b == "" || d < b) ? d : b }')
		i=$((i + 1))
	done
	echo "$b"
}

printf '%5s %9s %11s %11s %7s %12s %12s %7s\n' n substeps "advect s" "no ball s" share \
	"project s" "no ball s" share
for n in $sizes; do
	{ mkprim pool --res "$n" --depth 0.4 --drop-center 0.5,0.1,0.5 --drop-radius 0.05 &&
	  mkprim ball --res "$n" --center 0.5,0.6,0.5 --velocity 0,-3,0 --density 800; } |
		slccat -o "$dir/f0.slc" || exit 1
	advect --pls off "$dir/f0.slc" | project -o "$dir/f1.slc" || exit 1
	slccat --drop rigid,rigid_phi,rigid_phi0 -o "$dir/n1.slc" "$dir/f1.slc" || exit 1
	ns=$(advect -v --pls off "$dir/f1.slc" 2>&1 >/dev/null | sed -n 's/^advect: \([0-9]*\) substeps.*/\1/p')
	ab=$(best advect --pls off --cfl 0 --dt 0.01 "$dir/f1.slc" -o "$dir/a.slc")
	an=$(best advect --pls off --cfl 0 --dt 0.01 "$dir/n1.slc" -o "$dir/b.slc")
	pb=$(best project "$dir/a.slc" -o "$dir/p.slc")
	pn=$(best project "$dir/b.slc" -o "$dir/q.slc")
	awk -v n="$n" -v ns="$ns" -v ab="$ab" -v an="$an" -v pb="$pb" -v pn="$pn" 'BEGIN {
		printf "%5d %9s %11.3f %11.3f %6.0f%% %12.3f %12.3f %6.0f%%\n", n, ns, ab, an,
		       100 * (ab - an) / ab, pb, pn, 100 * (pb - pn) / pb }'
	rm -f "$dir"/*.slc
done
echo "advect: one substep of 0.01 s (--cfl 0); share: the ball's part of the time (resampling"
echo "its level set, and the solid extrapolation and reversion the fluid now needs)"
echo "substeps: what --cfl 1 takes for the whole frame with the ball"
