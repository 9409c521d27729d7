#!/bin/sh
# shellcouple: one frame of the hammock (pipelines/hammock: water falling
# onto a cloth held at its corners) at 64^3 and 128^3 cells (SIZES) with
# a cloth of about 30k triangles (RES 122: 2 x 122^2 = 29768), through the
# shell pipe
#     advect --shell cloth | shellcouple --stage force | clothstep
#         --keep-scene | shellcouple --stage project
# each stage timed alone (wall time on THREADS threads, default 2; best
# of REPS runs, default 1), against the same fluid step with no shell
# (advect | project on the frame without the cloth).  The frame timed is
# the second (the cloth has P_prev and f_fluid, the water is moving).
# Goals (issue 13): the shell's overhead, (advect --shell + force +
# project --shell) / (advect + project), at most 1.5; a 128^3 frame with
# a 30k-triangle cloth, clothstep included, in at most 30 s on two cores.
cd "$(dirname "$0")/.." || exit 2
sizes=${SIZES:-64 128}
reps=${REPS:-1}
threads=${THREADS:-2}
res=${RES:-122}
dir=bench/out/shellcouple
mkdir -p "$dir"
export PATH="$PWD/bin:$PATH"

# best wall time of $reps runs of the command, seconds
best() {
	b=""
	i=0
	while [ $i -lt "$reps" ]; do
		d=$(OMP_NUM_THREADS=$threads /usr/bin/time -f "%e" "$@" 2>&1 >/dev/null | tail -1) ||
			{ echo "bench: $* failed" >&2; exit 1; }
		b=$(awk -v d="$d" -v b="$b" 'BEGIN { print (b == "" || d < b) ? d : b }')
		i=$((i + 1))
	done
	echo "$b"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; $threads threads"
printf '%5s %6s %9s %8s %8s %9s %8s | %9s %8s | %6s %8s\n' n tris "advect" force \
	clothstep project frame "advect-0" "proj-0" ratio "ratio+c"
for n in $sizes; do
	mkprim pool --res "$n" --depth 0.15 --drop-center 0.5,0.72,0.5 --drop-radius 0.12 \
		-o "$dir/pool.slc" || exit 1
	mkprim cloth --res "$res" --size 0.8,0.8 --center 0.5,0.5,0.5 --pin corners \
		--name cloth -o "$dir/cloth.slc" || exit 1
	slccat "$dir/pool.slc" "$dir/cloth.slc" -o "$dir/f0.slc" || exit 1
	tris=$(slcinfo "$dir/cloth.slc" | sed -n 's/^ *tri .* prim \([0-9]*\) .*/\1/p')
	# the first frame, untimed
	OMP_NUM_THREADS=$threads advect --shell cloth "$dir/f0.slc" |
		shellcouple --stage force --shell cloth |
		clothstep --keep-scene --cloth cloth |
		shellcouple --stage project --shell cloth -o "$dir/f1.slc" || exit 1
	slccat --drop cloth "$dir/f1.slc" -o "$dir/n1.slc" || exit 1
	ta=$(best advect --shell cloth "$dir/f1.slc" -o "$dir/a.slc")
	tf=$(best shellcouple --stage force --shell cloth "$dir/a.slc" -o "$dir/b.slc")
	tc=$(best clothstep --keep-scene --cloth cloth "$dir/b.slc" -o "$dir/c.slc")
	tp=$(best shellcouple --stage project --shell cloth "$dir/c.slc" -o "$dir/d.slc")
	na=$(best advect "$dir/n1.slc" -o "$dir/e.slc")
	np=$(best project "$dir/e.slc" -o "$dir/g.slc")
	awk -v n="$n" -v t="$tris" -v ta="$ta" -v tf="$tf" -v tc="$tc" -v tp="$tp" \
	    -v na="$na" -v np="$np" 'BEGIN {
		printf "%5d %6d %9.2f %8.2f %8.2f %9.2f %8.2f | %9.2f %8.2f | %6.2f %8.2f\n", n, t,
		       ta, tf, tc, tp, ta + tf + tc + tp, na, np, (ta + tf + tp) / (na + np),
		       (ta + tf + tc + tp) / (na + np) }'
	rm -f "$dir"/*.slc
done
echo "seconds of wall time; advect: with --shell cloth (one-sided advection, visibility,"
echo "swept invalidation and refill); force, project: shellcouple's stages; frame: the four;"
echo "advect-0, proj-0: the same fluid frame with no shell; ratio: the fluid stages with the"
echo "shell over those without (goal <= 1.5); ratio+c: with clothstep too; goal: frame <= 30 s"
echo "at 128^3 on two cores"
