#!/bin/sh
# shellcouple: what a thin shell costs a fluid frame (issue 13's `make
# bench`).  One frame of the hammock (pipelines/hammock: water falling
# onto a cloth held at its corners) at 64^3 and 128^3 cells (SIZES) with a
# cloth of about 30k triangles (RES 122: 2 x 122^2 = 29768), through the
# shell pipe
#     advect --shell cloth | shellcouple --stage force | clothstep
#         --keep-scene | shellcouple --stage project
# each stage timed alone, against the same fluid frame with no shell
# (advect | project on the frame without the cloth).  The frame timed is
# the second (the cloth has P_prev and f_fluid, the water is moving).
#
# The split: advect's shell work is measured by its controls
# (--shell-handling): "one-sided" is advect with the shell but no swept
# invalidation (no-sweep) less advect ignoring it (off): the visibility
# queries, the one-sided advection of every field, the shell-aware level
# set and particles; "sweep" is advect (on) less no-sweep: the swept
# invalidation and the refill; "force" is shellcouple --stage force (the
# coupled solve and the transfer of the pressure to the cloth's nodes);
# "project" is shellcouple --stage project (the pressure solve with the
# faces the cloth cuts); "cloth" is clothstep.
#
# Every figure is the best of REPS runs (default 1), on THREADS threads
# (default 2), in wall seconds and in CPU seconds (user + system, all
# threads): on a shared machine the wall time holds the other jobs' load
# too (printed above the table), the CPU time much less so.
# Goals (issue 13): the shell's overhead, the fluid stages with the shell
# (advect + force + project) over those without (advect + project), at
# most 1.5; a 128^3 frame with a 30k-triangle cloth, clothstep included,
# in at most 30 s on two cores.
cd "$(dirname "$0")/.." || exit 2
sizes=${SIZES:-64 128}
reps=${REPS:-1}
threads=${THREADS:-2}
res=${RES:-122}
dir=bench/out/shellcouple
for p in advect shellcouple clothstep project mkprim slccat slcinfo; do
	[ -x "bin/$p" ] || { echo "build first: make"; exit 1; }
done
if [ ! -x /usr/bin/time ]; then
	echo "(skipped: /usr/bin/time, Debian package 'time', is not installed)"
	exit 0
fi
mkdir -p "$dir"
export PATH="$PWD/bin:$PATH"
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_WAIT_POLICY

# "wall cpu": the best wall and CPU seconds of $reps runs of the command
# (each best on its own)
best() {
	bw=""
	bc=""
	i=0
	while [ $i -lt "$reps" ]; do
		t=$(OMP_NUM_THREADS=$threads /usr/bin/time -f "%e %U %S" "$@" 2>&1 >/dev/null | tail -1) ||
			{ echo "bench: $* failed" >&2; exit 1; }
		bw=$(echo "$t" | awk -v b="$bw" '{ print (b == "" || $1 < b) ? $1 : b }')
		bc=$(echo "$t" | awk -v b="$bc" '{ c = $2 + $3; print (b == "" || c < b) ? c : b }')
		i=$((i + 1))
	done
	echo "$bw $bc"
}

echo "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; $threads threads, best of $reps"
rows=""
inner=""
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
	ta=$(best advect --shell cloth "$dir/f1.slc" -o "$dir/a.slc") || exit 1
	tn=$(best advect --shell cloth --shell-handling no-sweep "$dir/f1.slc" -o "$dir/x.slc") || exit 1
	to=$(best advect --shell cloth --shell-handling off "$dir/f1.slc" -o "$dir/x.slc") || exit 1
	tf=$(best shellcouple --stage force --shell cloth "$dir/a.slc" -o "$dir/b.slc") || exit 1
	# the coupled solve's inner solves with A (stage/shell_resp.h) and
	# their iterations: one or two a solve with the exact banded factor
	inner="$inner$n^3: $(slcinfo "$dir/b.slc" | awk '/meta .shellcouple./ { m = 1 }
		m && /inner_solves=/ { sub(/.*=/, ""); s = $1 }
		m && /inner_iterations=/ { sub(/.*=/, ""); i = $1 }
		END { printf "%s inner solves, %s iterations", s, i }')
"
	tc=$(best clothstep --keep-scene --cloth cloth "$dir/b.slc" -o "$dir/c.slc") || exit 1
	tp=$(best shellcouple --stage project --shell cloth "$dir/c.slc" -o "$dir/d.slc") || exit 1
	na=$(best advect "$dir/n1.slc" -o "$dir/e.slc") || exit 1
	np=$(best project "$dir/e.slc" -o "$dir/g.slc") || exit 1
	rows="$rows$n $tris $ta $tn $to $tf $tc $tp $na $np
"
	rm -f "$dir"/*.slc
done
printf '%s' "$rows" | awk '
function row(kind, n, t, adv, ons, off, f, c, p, na, np,   frame, plain, shell) {
	frame = adv + f + c + p
	plain = na + np
	shell = adv + f + p
	printf "%5d %5s %6d %6.2f %7.2f %6.2f %6.2f %6.2f %6.2f %7.2f | %6.2f %6.2f %6.2f | %5.2f %5.2f\n",
	       n, kind, t, adv, ons - off, adv - ons, f, p, c, frame, na, np, plain,
	       shell / plain, frame / plain
	if (kind == "wall" && n == 128)
		goal = sprintf("128^3 frame: %.1f s wall (goal <= 30 s on two cores: %s)", frame,
			       frame <= 30 ? "met" : "not met")
	if (kind == "cpu" && n == 128)
		goal = goal sprintf(", %.1f cpu s", frame)
	if (kind == "wall")
		ratio[n] = shell / plain
	if (kind == "cpu")
		cratio[n] = shell / plain
}
BEGIN {
	printf "%5s %5s %6s %6s %7s %6s %6s %6s %6s %7s | %6s %6s %6s | %5s %5s\n", "n", "time",
	       "tris", "advect", "1-sided", "sweep", "force", "proj", "cloth", "frame",
	       "adv-0", "proj-0", "plain", "ratio", "+cl"
}
{
	# fields: n tris then pairs (wall cpu) of ta tn to tf tc tp na np
	row("wall", $1, $2, $3, $5, $7, $9, $11, $13, $15, $17)
	row("cpu", $1, $2, $4, $6, $8, $10, $12, $14, $16, $18)
	sizes = sizes " " $1
}
END {
	print ""
	print "seconds; advect: advect --shell cloth, of which 1-sided (visibility, one-sided"
	print "advection, shell-aware level set and particles: no-sweep less off) and sweep (swept"
	print "invalidation and refill: on less no-sweep); force: shellcouple --stage force (coupled"
	print "solve, force transfer); proj: shellcouple --stage project (pressure solve with the cut"
	print "faces); cloth: clothstep; frame: the four; adv-0, proj-0, plain: the same fluid frame"
	print "with no shell; ratio: (advect + force + proj) / plain (goal <= 1.5); +cl: frame / plain"
	m = split(sizes, s, " ")
	for (i = 1; i <= m; i++)
		printf "%d^3: shell overhead %.2fx wall, %.2fx cpu (goal <= 1.5x: %s)\n", s[i],
		       ratio[s[i]], cratio[s[i]], cratio[s[i]] <= 1.5 ? "met" : "not met"
	if (goal != "")
		print goal
}'
printf 'force stage, the coupled solve:\n%s' "$inner"
