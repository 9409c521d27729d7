#!/bin/sh
# project: pressure solve iterations to 1e-6 relative residual (max norm)
# with the multigrid and the MIC(0) preconditioner at 64^3, 128^3 and
# 256^3, solve time per cell per iteration, peak memory per cell of the
# solve and of the project program; ratios within this run.
# SIZES="64 128" restricts the sizes.
cd "$(dirname "$0")/.." || exit 2
B=build/bench/bench_project
F=build/tests/test_project_frames
sizes=${SIZES:-64 128 256}
out=bench/out/project.txt
mkdir -p bench/out
: > "$out"
echo "time per cell per iteration: wall clock (ns/cell/it) and CPU of all threads (cpu ns)"
printf '%-6s %4s %-5s %10s %3s %5s %9s %8s %8s %11s %8s %10s\n' system n pc "fluid" lv iters residual setup_s solve_s "ns/cell/it" "cpu ns" "rss B/cell"
for sys in smoke water; do
	for n in $sizes; do
		for pc in mg mic0; do
			line=$($B $sys $n $pc) || { echo "bench: $sys $n $pc failed"; exit 1; }
			echo "$line" >> "$out"
			echo "$line" | awk '{ printf "%-6s %4d %-5s %10d %3d %5d %9.2g %8.3f %8.3f %11.1f %8.1f %10.0f\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $13, $11 }'
		done
	done
done
echo
echo "iterations, mic0 / mg and growth of mg from the smallest size (goal: mg <= 15, growing by <= 2):"
awk '{ it[$1" "$2" "$3] = $6; t[$1" "$2" "$3] = $12; if (!($1 in first)) first[$1] = $2; sys[$1] = 1; ns[$2] = 1 }
     END { for (s in sys) for (n in ns) if ((s" "n" mg") in it)
		printf "  %-6s %4d: mg %3d  mic0 %4d  (x%.1f iterations, x%.2f CPU time)  mg growth %+d\n", s, n,
		       it[s" "n" mg"], it[s" "n" mic0"], it[s" "n" mic0"] / it[s" "n" mg"],
		       t[s" "n" mic0"] / t[s" "n" mg"], it[s" "n" mg"] - it[s" "first[s]" mg"] }' "$out" | sort -k1,1 -k2n
echo
echo "peak memory of the project program (a smoke frame, mg):"
for n in $sizes; do
	[ "$n" -le 128 ] || continue
	$F box "bench/out/project_$n.slc" "$n" || exit 1
	r=$($B rss bin/project -o "bench/out/project_out.slc" "bench/out/project_$n.slc") || { echo "bench: project failed"; exit 1; }
	echo "$n $r" | awk '{ printf "  %4d^3: %8.1f MB, %6.0f bytes/cell\n", $1, $2 / 1e6, $2 / ($1 ^ 3) }'
	rm -f "bench/out/project_$n.slc" bench/out/project_out.slc
done
