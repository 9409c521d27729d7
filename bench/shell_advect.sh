#!/bin/sh
# shell_advect: what a thin shell costs advect.  A smoke plume (developed
# over WARM untimed frames of advect | project) rises against a hanging
# curtain of about 30k triangles (mkprim curtain, 122 quads a side) that
# clothstep has moved for one frame (P_prev -> P, so the swept
# invalidation and refill run too); the same frame is advected with
# --shell-handling off (the mesh read, then ignored: the plain step) and
# on, at 64^3 and 128^3 cells.  CPU seconds (all threads) and wall
# seconds, best of REPS; advect -v's counts of one-sided and swept
# samples.  The shell's overhead is set against the plain fluid step
# (advect + project without the shell); goals (issue 13): a frame with
# the shell at most 1.5x the plain step, a 128^3 frame with a 30k-triangle
# cloth within 30 s on two cores.  The pressure side of a shell (cut
# faces, loads) is not in these figures: project does not see the shell
# here.
#   RES="64 128" (grids), REPS=3, WARM=3, CLOTH=122 (quads a side).
cd "$(dirname "$0")/.." || exit 2
d=bench/out/shell_advect
mkdir -p "$d"
for p in advect project mkprim clothstep; do
	[ -x "bin/$p" ] || { echo "build first: make"; exit 1; }
done
if [ ! -x /usr/bin/time ]; then
	echo "(skipped: /usr/bin/time, Debian package 'time', is not installed)"
	exit 0
fi
RES=${RES:-64 128}
REPS=${REPS:-3}
WARM=${WARM:-3}
CLOTH=${CLOTH:-122}
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_WAIT_POLICY
A="--source source --buoyancy 0.1,4 --confinement 0.3"

# the curtain, moved one frame by clothstep (its P_prev is where it hung)
bin/mkprim curtain --res "$CLOTH" --size 0.8,0.8 --center 0.5,0.9,0.5 \
	--name cloth -o "$d/curtain0.slc" &&
	bin/clothstep --self off --steps 2 --wind 0,0,2 --drag 1 --keep-prev \
		"$d/curtain0.slc" -o "$d/curtain.slc" 2> /dev/null || exit 1
ntri=$(bin/slcinfo "$d/curtain.slc" | awk '$1 == "tri" { print $5; exit }')

echo "advect of one frame, a plume against a moving curtain of $ntri triangles, best of $REPS:"
printf '%-6s %-6s %9s %9s %11s %9s\n' grid shell "wall s" "cpu s" one-sided swept
for n in $RES; do
	bin/mkprim smoke --box 1,1,1 --res "$n" --center 0.5,0.2,0.4 -o "$d/s.slc" || exit 1
	i=0
	while [ "$i" -lt "$WARM" ]; do
		# shellcheck disable=SC2086
		bin/advect $A "$d/s.slc" | bin/project -o "$d/s1.slc" &&
			mv "$d/s1.slc" "$d/s.slc" || exit 1
		i=$((i + 1))
	done
	cat "$d/s.slc" "$d/curtain.slc" > "$d/f$n.slc"
	: > "$d/t$n.txt"
	r=0
	while [ "$r" -lt "$REPS" ]; do
		for m in off on; do
			# shellcheck disable=SC2086
			/usr/bin/time -f "$m %e %U %S" -a -o "$d/t$n.txt" bin/advect $A -v \
				--shell cloth --shell-handling "$m" "$d/f$n.slc" \
				-o "$d/a$n-$m.slc" 2> "$d/v$n-$m.txt" || exit 1
		done
		/usr/bin/time -f "project %e %U %S" -a -o "$d/t$n.txt" bin/project \
			"$d/a$n-off.slc" -o "$d/p$n.slc" || exit 1
		r=$((r + 1))
	done
	cnt=$(awk '/shells:/ { print $3, $7 }' "$d/v$n-on.txt")
	awk -v n="$n" -v cnt="$cnt" '
	{ w = $2; c = $3 + $4
	  if (!($1 in bw) || w < bw[$1]) bw[$1] = w
	  if (!($1 in bc) || c < bc[$1]) bc[$1] = c }
	END {
		split(cnt, k, " ")
		printf "%-6s %-6s %9.2f %9.2f %11s %9s\n", n "^3", "off", bw["off"], bc["off"], "-", "-"
		printf "%-6s %-6s %9.2f %9.2f %11s %9s\n", n "^3", "on", bw["on"], bc["on"], k[1], k[2]
		printf "%-6s %-6s %9.2f %9.2f\n", n "^3", "project", bw["project"], bc["project"]
	}' "$d/t$n.txt" >> "$d/rows.txt.$$"
	awk -v n="$n" '
	{ c = $3 + $4; w = $2
	  if (!($1 in bc) || c < bc[$1]) bc[$1] = c
	  if (!($1 in bw) || w < bw[$1]) bw[$1] = w }
	END {
		plain = bc["off"] + bc["project"]; shell = bc["on"] + bc["project"]
		printf "%d^3: advect with the shell %.2fx without (cpu); plain step (advect + project) %.2f cpu s, %.2f wall s;\n", n, bc["on"] / bc["off"], plain, bw["off"] + bw["project"]
		printf "      with the shell %.2f cpu s, %.2f wall s: %.2fx the plain step (goal <= 1.5x)", shell, bw["on"] + bw["project"], shell / plain
		if (n == 128) printf "; wall %.1f s (goal <= 30 s)", bw["on"] + bw["project"]
		printf "\n"
	}' "$d/t$n.txt" >> "$d/ratio.txt.$$"
done
cat "$d/rows.txt.$$" "$d/ratio.txt.$$"
rm -f "$d/rows.txt.$$" "$d/ratio.txt.$$"
