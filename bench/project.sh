#!/bin/sh
# project: pressure solve iterations to 1e-6 relative residual (max norm)
# with the multigrid and the MIC(0) preconditioner at 64^3, 128^3 and
# 256^3, solve time per cell per iteration, peak memory per cell of the
# solve and of the project program; ratios within this run.  Beside them,
# when libhypre-dev and mpicc are installed, hypre's PCG with its PFMG
# preconditioner on the same 128^3 systems (bench/hypre/hypre_pcg.c, bench
# only: built here with mpicc, never by make), on one rank and on as many
# ranks as cores, its residual recomputed with sluice's operator.
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
awk '$3 == "mg" { if (!($1 in lo) || $6 < lo[$1]) lo[$1] = $6; if ($6 > hi[$1]) hi[$1] = $6; ns[$1] = ns[$1] " " $2 }
     END { for (s in lo) printf "  %-6s mg %d..%d iterations over n =%s: goal %s\n", s, lo[s], hi[s], ns[s],
		(hi[s] <= 15 && hi[s] - lo[s] <= 2) ? "met" : "missed" }' "$out" | sort
echo
echo "peak memory of the project program (a smoke frame, mg):"
for n in $sizes; do
	$F box "bench/out/project_$n.slc" "$n" || exit 1
	r=$($B rss bin/project -o "bench/out/project_out.slc" "bench/out/project_$n.slc") || { echo "bench: project failed"; exit 1; }
	echo "$n $r" | awk '{ printf "  %4d^3: %8.1f MB, %6.0f bytes/cell\n", $1, $2 / 1e6, $2 / ($1 ^ 3) }'
	rm -f "bench/out/project_$n.slc" bench/out/project_out.slc
done

echo
echo "hypre (PCG + PFMG) on the same 128^3 systems, to sluice's criterion max|r| <= 1e-6 max|b|:"
H=build/bench/hypre_pcg
hyp=""
case " $sizes " in
*" 128 "*)
	if [ ! -f /usr/include/hypre/HYPRE_struct_ls.h ]; then
		hyp="hypre headers not installed (libhypre-dev)"
	elif ! command -v mpicc >/dev/null; then
		hyp="mpicc not found (libopenmpi-dev)"
	elif [ ! -x "$H" ] || [ bench/hypre/hypre_pcg.c -nt "$H" ] ||
	     [ bench/project_system.h -nt "$H" ] || [ build/libsluice.a -nt "$H" ]; then
		mpicc -std=c11 -D_DEFAULT_SOURCE -O2 -fopenmp -Ilib -Ibench -I/usr/include/hypre \
			-o "$H" bench/hypre/hypre_pcg.c build/libsluice.a -lHYPRE -lpng -lz -lm \
			2> bench/out/hypre_build.log || hyp="hypre_pcg did not build: see bench/out/hypre_build.log"
	fi ;;
*)	hyp="128 is not among SIZES" ;;
esac
if [ -n "$hyp" ]; then
	echo "  skipped: $hyp"
	exit 0
fi
hout=bench/out/project_hypre.txt
: > "$hout"
np=$(nproc 2>/dev/null || echo 1)
printf '%-6s %-14s %10s %5s %6s %9s %9s %8s %8s %8s %11s %10s\n' system solver fluid iters "it(l2)" "max rel" "l2 rel" setup_s solve_s cpu_s "ns/cell/it" "rss B/cell"
for sys in smoke water; do
	awk -v s=$sys '$1 == s && $2 == 128 && $3 == "mg" { printf "%-6s %-14s %10d %5d %6s %9.2g %9s %8.3f %8.3f %8.3f %11.1f %10.0f\n", $1, "sluice mg", $4, $6, "-", $7, "-", $8, $9, $12, $10, $11 }' "$out"
	for p in 1 $np; do
		if [ "$p" = 1 ]; then
			line=$(OMP_NUM_THREADS=1 $H $sys 128)
		elif command -v mpirun >/dev/null; then
			line=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 \
				mpirun -np "$p" --oversubscribe $H $sys 128 2> bench/out/hypre_mpirun.log)
		else
			echo "  (mpirun not found: hypre on one rank only)"
			continue
		fi
		[ -n "$line" ] || { echo "bench: hypre_pcg $sys 128 on $p ranks failed"; continue; }
		echo "$line" >> "$hout"
		echo "$line" | awk '{ printf "%-6s %-14s %10d %5s %6d %9.2g %9.2g %8.3f %8.3f %8s %11s %10.0f\n", $1, "hypre " $3 " rank" ($3 > 1 ? "s" : ""), $4, $6, $5, $7, $8, $10, $11, $12, $13, $14 }'
		[ "$p" = "$np" ] && break
	done
done
echo
echo "hypre over sluice mg at 128^3 (> 1: sluice faster or fewer; setup+solve; the goal: > 1):"
awk 'FNR == NR { if ($2 == 128 && $3 == "mg") { it[$1] = $6; w[$1] = $8 + $9; c[$1] = $12 }; next }
     $6 != "-" && ($1 in it) {
	printf "  %-6s hypre %d rank%s: iterations x%.2f, wall x%.2f, CPU x%.2f\n", $1, $3, ($3 > 1 ? "s" : " "),
	       $6 / it[$1], ($10 + $11) / w[$1], $12 / c[$1] }' "$out" "$hout"
echo "  (sluice: OpenMP on $np cores; hypre: the Debian build, MPI without OpenMP; l2 rel and it(l2): hypre's own 2-norm criterion)"
