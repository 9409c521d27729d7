#!/bin/sh
# advect: semi-Lagrangian / MacCormack / BFECC speed on one 256^3 field
# against a memory-bandwidth triad measured in the same run; Zalesak's disc
# (selle2008 thesis §2.8) errors and orders beside the thesis tables; a
# whole 128^3 smoke step (advect | project).
#   N=256 (speed grid), ZALESAK="101 201 401" (sizes at CFL 1.75; CFL 0.75
#   runs the first two), e.g. ZALESAK="101 201 401 801" for the full table.
cd "$(dirname "$0")/.." || exit 2
b=build/bench/bench_advect
d=bench/out/advect
mkdir -p "$d"
N=${N:-256}
ZALESAK=${ZALESAK:-101 201 401}

$b speed "$N" > "$d/speed.txt" || exit 1
read -r n thr gbs sl mc bf bound < "$d/speed.txt"
echo "advect, one ${n}^3 cell field, $thr threads, CFL 1 swirl, best of 3:"
printf '%-12s %14s %12s %14s\n' scheme "Mcells/s" "x of SL" "of the bound"
awk -v sl="$sl" -v mc="$mc" -v bf="$bf" -v bound="$bound" 'BEGIN {
	printf "%-12s %14.2f %12.2f %14.3f\n", "sl", sl / 1e6, 1, sl / bound
	printf "%-12s %14.2f %12.2f %14.3f\n", "maccormack", mc / 1e6, sl / mc, mc / bound
	printf "%-12s %14.2f %12.2f %14.3f\n", "bfecc", bf / 1e6, sl / bf, bf / bound
}'
awk -v g="$gbs" -v bound="$bound" 'BEGIN {
	printf "triad %.2f GB/s -> bound %.1f Mcells/s (20 bytes per cell: q, u, v, w read, q written)\n", g, bound / 1e6
	print "goals: SL >= 0.5 of the bound; maccormack <= 2.5x SL, bfecc <= 3.5x SL"
}'
echo

echo "zalesak's disc, one turn, mean |error| over the inscribed disc (r <= 50),"
echo "order = thesis §2.8 pointwise mean of log2(e/e'); thesis figures 2.7 (CFL .75), 2.8 (1.75):"
printf '%-12s %5s %6s %10s %7s %10s %7s %8s\n' scheme cfl grid error order thesis t.order seconds
first2=$(echo "$ZALESAK" | awk '{print $1, $2}')
{ $b zalesak 1.75 $ZALESAK; $b zalesak 0.75 $first2; } > "$d/zalesak.txt" || exit 1
awk '
BEGIN {
	# thesis Figure 2.8 (CFL 1.75) and 2.7 (CFL .75): error, order
	t["sl 1.75 101"] = "2.0 -";       t["sl 1.75 201"] = "1.1 1.02"
	t["sl 1.75 401"] = "5.6e-1 1.02"; t["sl 1.75 801"] = "3.0e-1 1.01"
	t["maccormack 1.75 101"] = "1.5e-1 -";   t["maccormack 1.75 201"] = "6.0e-2 1.82"
	t["maccormack 1.75 401"] = "3.0e-2 1.62"; t["maccormack 1.75 801"] = "1.2e-2 1.99"
	t["bfecc 1.75 101"] = "5.4e-2 -";   t["bfecc 1.75 201"] = "2.4e-2 1.81"
	t["bfecc 1.75 401"] = "1.0e-2 1.84"; t["bfecc 1.75 801"] = "4.0e-3 1.98"
	t["sl 0.75 101"] = "1.8 -";         t["sl 0.75 201"] = "1.0 1.04"
	t["sl 0.75 401"] = "5.4e-1 1.03";   t["sl 0.75 801"] = "2.9e-1 1.02"
	t["maccormack 0.75 101"] = "1.7e-1 -";   t["maccormack 0.75 201"] = "6.7e-2 1.95"
	t["maccormack 0.75 401"] = "3.3e-2 1.60"; t["maccormack 0.75 801"] = "1.4e-2 2.06"
	t["bfecc 0.75 101"] = "9.9e-2 -";   t["bfecc 0.75 201"] = "4.1e-2 1.73"
	t["bfecc 0.75 401"] = "2.0e-2 1.67"; t["bfecc 0.75 801"] = "8.4e-3 1.93"
}
{
	k = $1 " " $2 " " $3
	split((k in t) ? t[k] : "- -", th, " ")
	printf "%-12s %5s %6s %10s %7s %10s %7s %8s\n", $1, $2, $3 "^2", $4, ($5 == "nan" ? "-" : $5), th[1], th[2], $6
}' "$d/zalesak.txt"
echo

if [ -x bin/project ] && [ -x bin/mkprim ]; then
	bin/mkprim smoke --box 1,1,1 --res 128 --center 0.5,0.2,0.5 > "$d/smoke0.slc"
	bin/advect --source source --buoyancy 0.1,4 < "$d/smoke0.slc" | bin/project > "$d/smoke1.slc"
	best=
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		bin/advect --cfl 0 --source source --buoyancy 0.1,4 --confinement 0.3 < "$d/smoke1.slc" |
			bin/project > "$d/smoke2.slc"
		t1=$(date +%s.%N)
		best=$(echo "$t0 $t1 $best" | awk '{t=$2-$1; if ($3=="" || t<$3) print t; else print $3}')
	done
	t0=$(date +%s.%N)
	bin/advect --cfl 0 --source source --buoyancy 0.1,4 --confinement 0.3 < "$d/smoke1.slc" > /dev/null
	t1=$(date +%s.%N)
	echo "$best $t0 $t1" | awk '{ printf "128^3 smoke step (advect maccormack + confinement | project), best of 3: %.2f s (advect alone %.2f s); goal 0.25 s\n", $1, $3 - $2 }'
fi
