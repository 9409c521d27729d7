#!/bin/sh
# clothstep: seconds per frame (24 fps, 8 steps per frame) of square sheets
# of 10k, 100k and 500k triangles falling on a sphere and the ground, and
# the share of each part of the algorithm (repulsions, time integration,
# collisions) as clothstep -v reports it, self-collisions on.  Frames 1-3
# are timed: the sheet starts 0.05 m above the sphere and lands on it
# during frame 3.  CLOTH_SIZES chooses the sizes (quads per side, 2 n^2
# triangles): 71 and 224 by default; CLOTH_SIZES="71 224 500" adds the
# 500k sheet, about 4 CPU-minutes a frame.
cd "$(dirname "$0")/.." || exit 2
d=bench/out/clothstep
mkdir -p "$d"
[ -x bin/clothstep ] && [ -x bin/mkprim ] || { echo "build first: make"; exit 1; }
args="--sphere 0,0.5,0 --sphere-radius 0.4 --ground 0 -v"
th=${OMP_NUM_THREADS:-$(nproc)}
# a shared machine: idle threads must sleep, not spin
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_WAIT_POLICY
printf '%-10s %8s %8s %10s %10s %8s %8s %8s %8s\n' triangles points threads s/frame cpu/frame repuls integr collis CG/step
for n in ${CLOTH_SIZES:-71 224}; do
	bin/mkprim cloth --res "$n" --center 0,0.95,0 -o "$d/f0.slc" || exit 1
	: > "$d/log"
	for i in 1 2 3; do
		/usr/bin/time -f "%e %U %S" -a -o "$d/time" \
			bin/clothstep $args "$d/f$((i - 1)).slc" -o "$d/f$i.slc" \
			2>> "$d/log" || exit 1
	done
	tail -n 3 "$d/time" > "$d/t3"
	awk -v n="$n" -v th="$th" '
		FILENAME ~ /t3$/ { w += $1; c += $2 + $3; next }
		/ points, / { p = $3; st += $5; cg += $7 }
		/seconds:/ { r += $5; i += $7; k += $9 }
		END { tot = r + i + k; if (tot <= 0) tot = 1
			printf "%-10d %8d %8s %10.2f %10.2f %7.0f%% %7.0f%% %7.0f%% %8.1f\n",
				2 * n * n, p, th, w / 3, c / 3, 100 * r / tot,
				100 * i / tot, 100 * k / tot, cg / st }' "$d/t3" "$d/log"
	rm -f "$d/time"
done
