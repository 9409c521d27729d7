#!/bin/sh
# hairstep: minutes per frame (24 fps) of mkprim's straight hair on its
# scalp at 50k, 250k and 500k particles (2k, 10k and 20k strands of 12
# segments, 25 particles a strand with the virtuals), self-collisions and
# stiction on, and the split between integration (the Newmark steps: CG
# with the per-strand preconditioner, strain limiting, body collisions),
# collisions (repulsions, self-collisions, body push-out) and stiction
# (steps A: bonds and the repulsion pairs) as hairstep -v reports it.
# The thesis (selle2008 table 7.2) ran 500k particles in 10 min a frame on
# four quad-processor machines; the goals printed beside: 500k particles
# in at most 5 min a frame on two cores, and the time of 20k strands over
# 10k at most 2.2 (linear in the strand count).
# A frame takes at least 8 steps; to keep the default run to a few minutes
# each size runs HAIR_STEPS (1) steps and the frame is that time scaled by
# 8 / HAIR_STEPS (set-up and I/O included, so an overestimate).
# HAIR_SIZES lists STRANDS values.
cd "$(dirname "$0")/.." || exit 2
d=bench/out/hairstep
mkdir -p "$d"
[ -x bin/hairstep ] && [ -x bin/mkprim ] || { echo "build first: make"; exit 1; }
th=${OMP_NUM_THREADS:-2}
steps=${HAIR_STEPS:-1}
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_WAIT_POLICY
printf '%-8s %9s %3s %5s %8s %8s %-13s %7s %7s %7s %8s %6s\n' \
	strands particles thr steps 'wall s' 'min/fr' 'goal <=5 min' \
	integr collis sticti 'CG/solve' bonds
rm -f "$d/walls"
for ns in ${HAIR_SIZES:-2000 10000 20000}; do
	bin/mkprim hair --strands "$ns" --segments 12 -o "$d/f0.slc" || exit 1
	OMP_NUM_THREADS=$th /usr/bin/time -f "%e" -o "$d/time" bin/hairstep -v \
		--steps "$steps" --max-steps "$steps" "$d/f0.slc" -o "$d/f1.slc" \
		2> "$d/log" || { cat "$d/log"; exit 1; }
	wall=$(cat "$d/time")
	np=$(sed -n 's/.*: \([0-9]*\) points, \([0-9]*\) virtuals.*/\1 \2/p' "$d/log" | awk '{print $1 + $2}')
	cg=$(sed -n 's/.* \([0-9]*\) CG iterations.*/\1/p' "$d/log")
	bonds=$(sed -n 's/.*: \([0-9]*\) bonds (.*/\1/p' "$d/log")
	set -- $(sed -n 's/.*time \([0-9.]*\) s integration, \([0-9.]*\) s collisions, \([0-9.]*\) s stiction.*/\1 \2 \3/p' "$d/log")
	echo "$ns $np $th $steps $wall $1 $2 $3 $cg $bonds" | awk '{
		fr = $5 * 8 / $4 / 60; t = $6 + $7 + $8; if (t <= 0) t = 1;
		ok = $2 >= 400000 ? (fr <= 5 ? "yes" : "NO") : "-";
		printf "%-8d %9d %3d %5d %8.2f %8.2f %-13s %6.0f%% %6.0f%% %6.0f%% %8.1f %6d\n",
			$1, $2, $3, $4, $5, fr, ok, 100 * $6 / t, 100 * $7 / t,
			100 * $8 / t, $9 / (2 * $4), $10}'
	echo "$ns $wall" >> "$d/walls"
done
awk '{ n[NR] = $1; w[NR] = $2 } END {
	for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++)
		if (n[j] == 2 * n[i])
			printf "time(%d strands) / time(%d strands) = %.2f (goal <= 2.2)\n",
				n[j], n[i], w[j] / w[i] }' "$d/walls"
rm -f "$d"/*.slc "$d/time" "$d/walls" "$d/log"
echo "(min/fr: ${steps} steps timed, scaled to the 8 of a frame; integr/collis/sticti: shares of"
echo " the stepping time; CG/solve: iterations per CG solve, two solves a step;"
echo " load average now: $(cut -d' ' -f1 /proc/loadavg))"
