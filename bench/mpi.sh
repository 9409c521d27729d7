#!/bin/sh
# mpi: the MPI builds (bin-mpi/) at 1 and 2 ranks of one thread each
# (OMP_NUM_THREADS=1): a 256^3 smoke step (advect then project) and a
# 100k-triangle cloth frame (clothstep, the drape of bench/clothstep.sh),
# with the wall time of each, the parallel efficiency T1 / (2 T2) (goal
# for the fluid step: at least 0.9), the share of time communicating (the
# tools' -v line "comm: ..." of rank 0: halo exchanges, reductions and
# gathers over the wall time from MPI's start; lib/comm/mpicomm.h) and
# the memory of each rank (max RSS).  Then the measured costs of one halo
# exchange, one ordered plane sum and one MPI maximum between two local
# ranks, with MPI ping-pong latency and bandwidth (bench/mpi/comm_costs.c,
# built here with mpicc), and from them and the step's counts a table
# projecting the 512^3 step to 8, 16 and 64 ranks on a 10 Gb/s network,
# its assumptions printed with it.
# MPI_RES (default 256) and MPI_CLOTH (quads per side, default 224: 100352
# triangles) shrink the problems; the default run takes about ten minutes
# on a loaded two-core machine.  Frames go to a scratch directory in
# /dev/shm when it has room (the fsync of a 400 MB frame on a slow disk
# would otherwise dwarf the step), else bench/out/mpi.
cd "$(dirname "$0")/.." || exit 2
res=${MPI_RES:-256}
cn=${MPI_CLOTH:-224}
out=bench/out/mpi
mkdir -p "$out"
for b in bin/mkprim bin/clothstep bin-mpi/advect bin-mpi/project bin-mpi/clothstep \
	build-mpi/libsluice.a; do
	[ -e "$b" ] || { echo "build first: make && make mpi ($b missing)"; exit 1; }
done
command -v mpirun > /dev/null && command -v mpicc > /dev/null ||
	{ echo "mpi: no mpirun or mpicc (make deps)"; exit 1; }
[ -x /usr/bin/time ] || { echo "mpi: no /usr/bin/time"; exit 1; }
d=$out
if [ -d /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt 3000000 ]; then
	d=$(mktemp -d /dev/shm/sluice-bench-mpi.XXXXXX) || exit 1
	trap 'rm -rf "$d"' EXIT INT TERM
fi
cores=$(getconf _NPROCESSORS_ONLN)
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
if [ "$(id -u)" = 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
MPIRUN="mpirun --oversubscribe"

mpicc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -fopenmp -Ilib -DSLC_MPI \
	bench/mpi/comm_costs.c build-mpi/libsluice.a -lpng -lz -lm -o "$out/comm_costs" || exit 1

# run NP TAG PROGRAM ARGS...: PROGRAM over NP ranks, each rank timed into
# $d/TAG.NP.RANK ("elapsed user system maxrss_kB"), rank 0's stderr into
# $d/TAG.NP.log
run() {
	np=$1 tag=$2
	shift 2
	$MPIRUN -np "$np" sh -c 'exec /usr/bin/time -f "%e %U %S %M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
		"$d/$tag.$np" "$@" 2> "$d/$tag.$np.log" ||
		{ echo "mpi: $tag over $np ranks failed:"; tail -5 "$d/$tag.$np.log"; exit 1; }
}

# field N TAG NP: field N ("elapsed", "cpu", "rss") over the ranks of one
# run: the largest elapsed, the sum of CPU, the largest RSS (kB)
field() {
	cat "$d/$2.$3".[0-9]* | awk -v f="$1" '
		{ e = ($1 > e ? $1 : e); c += $2 + $3; m = ($4 > m ? $4 : m) }
		END { if (f == "elapsed") print e; else if (f == "cpu") print c; else print m }'
}

# commv TAG NP KEY: the value of KEY= in rank 0's comm line
commv() {
	grep 'comm: ' "$d/$1.$2.log" | tail -1 | tr ' ' '\n' | sed -n "s/^$3=//p"
}

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) on $cores cores (times are wall clock: a loaded machine stretches them)"
echo

# --- the fluid step -----------------------------------------------------
# at 1 and 2 ranks, and at 2 with --mpi-io (tags adv, proj; advio, projio)
bin/mkprim smoke --res "$res" --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$d/f0.slc" || exit 1
for v in 1 2 2io; do
	np=${v%io} io= sfx=
	[ "$v" = 2io ] && io=--mpi-io sfx=io
	mkdir -p "$d/s$v"
	cp "$d/f0.slc" "$d/s$v/f0.slc"
	(cd "$d/s$v" || exit 1
	 run "$np" "adv$sfx" "$OLDPWD/bin-mpi/advect" $io -v --source source --buoyancy 0.1,4 \
		--confinement 0.3 --dt 0.04 f0.slc -o a1.slc
	 run "$np" "proj$sfx" "$OLDPWD/bin-mpi/project" $io -v a1.slc -o f1.slc) || exit 1
	rm -f "$d/s$v/f0.slc" "$d/s$v/a1.slc"
done
same=$(cmp -s "$d/s1/f1.slc" "$d/s2/f1.slc" && cmp -s "$d/s1/f1.slc" "$d/s2io/f1.slc" &&
	echo yes || echo NO)
rm -f "$d/f0.slc" "$d"/s*/f1.slc

# --- the cloth frame ----------------------------------------------------
cargs="--sphere 0,0.5,0 --sphere-radius 0.4 --ground 0 -v"
bin/mkprim cloth --res "$cn" --center 0,0.91,0 -o "$d/c0.slc" || exit 1
# one frame baked untimed (the sheet lands), then the timed one
OMP_NUM_THREADS=$cores bin/clothstep $cargs "$d/c0.slc" -o "$d/c1.slc" 2> /dev/null || exit 1
for np in 1 2; do
	mkdir -p "$d/c$np"
	cp "$d/c1.slc" "$d/c$np/c1.slc"
	(cd "$d/c$np" && run "$np" cloth "$OLDPWD/bin-mpi/clothstep" $cargs c1.slc -o c2.slc) ||
		exit 1
done
csame=$(cmp -s "$d/c1/c2.slc" "$d/c2/c2.slc" && echo yes || echo NO)
rm -f "$d/c0.slc" "$d/c1.slc"

# --- the table of the runs ------------------------------------------------
# rssr NP TAG...: each rank's largest RSS over the runs TAG (MB), r0/r1/...
rssr() {
	np=$1 r=0 list=
	shift
	while [ "$r" -lt "$np" ]; do
		m=0
		for t in "$@"; do
			m=$(awk -v m="$m" '{ print ($4 / 1024 > m ? $4 / 1024 : m) }' "$d/$t.$np.$r")
		done
		list="$list${list:+/}$(printf '%.0f' "$m")"
		r=$((r + 1))
	done
	echo "$list"
}
printf '%-27s %3s %8s %8s %11s %6s %8s %7s\n' run ranks "wall s" "cpu s" "RSS MB" share "eff wall" "eff cpu"
for job in fluid fluidio cloth; do
	for np in 1 2; do
		case $job in
		fluid*)
			[ $job = fluidio ] && { [ "$np" = 1 ] && continue; sfx=io; } || sfx=
			w=$(echo "$(field elapsed adv$sfx $np) $(field elapsed proj$sfx $np)" | awk '{ print $1 + $2 }')
			c=$(echo "$(field cpu adv$sfx $np) $(field cpu proj$sfx $np)" | awk '{ print $1 + $2 }')
			m=$(rssr "$np" "adv$sfx" "proj$sfx")
			name="smoke $res^3 step${sfx:+ --mpi-io}"
			sh=$(echo "$(commv adv$sfx $np wall) $(commv adv$sfx $np share) $(commv proj$sfx $np wall) $(commv proj$sfx $np share)" |
				awk 'NF == 4 && $1 + $3 > 0 { printf "%.3f", ($1 * $2 + $3 * $4) / ($1 + $3); exit } { print "-" }')
			;;
		cloth)
			w=$(field elapsed cloth $np)
			c=$(field cpu cloth $np)
			m=$(rssr "$np" cloth)
			name="cloth $((2 * cn * cn)) tris"
			sh=$(commv cloth $np share)
			sh=${sh:--}
			;;
		esac
		[ "$np" = 1 ] && w1=$w c1=$c
		eff=$(echo "$w1 $w $np" | awk '{ printf "%.2f", $1 / ($3 * $2) }')
		effc=$(echo "$c1 $c" | awk '{ printf "%.2f", $1 / $2 }')
		printf '%-27s %3d %8.2f %8.2f %11s %6s %8s %7s\n' "$name" "$np" "$w" "$c" "$m" "$sh" "$eff" "$effc"
		eval "w_${job}_$np=$w c_${job}_$np=$c"
	done
done
echo "RSS: each rank's largest resident size (rank 0/rank 1); share: rank 0's seconds in halo exchanges,"
echo "reductions and gathers over its wall time from MPI's start (waiting for a slower rank counts);"
echo "eff wall: T1/(P TP) of the wall times; eff cpu: the CPU seconds of 1 rank over those of all P"
echo "(the work added by the ranks, spinning in MPI's waits included)"
echo "same bytes at 1, 2 and 2 ranks --mpi-io: fluid $same; at 1 and 2 ranks: cloth $csame"
awk -v a="$w_fluid_1" -v b="$w_fluid_2" 'BEGIN { e = a / (2 * b)
	printf "fluid step efficiency T1/(2 T2) = %.2f: goal >= 0.9 %s\n", e, (e >= 0.9 ? "met" : "missed") }'
echo "rank 0's -v lines at 2 ranks (calls,bytes,seconds; the frame's scatter, gather and I/O apart):"
for t in adv proj advio projio cloth; do
	[ -s "$d/$t.2.log" ] && grep 'comm: ' "$d/$t.2.log" | tail -1 | sed "s/^/  $t, 2 ranks: /"
done
echo

# --- measured costs and the projection -----------------------------------
$MPIRUN -np 2 "$out/comm_costs" 512 2 > "$d/costs" 2> "$d/costs.log" ||
	{ echo "mpi: comm_costs failed:"; tail -5 "$d/costs.log"; exit 1; }
cost() { sed -n "s/^$1 //p" "$d/costs"; }
echo "measured between 2 local ranks (shared memory), medians:"
echo "  ping-pong latency $(cost latency_us) us, bandwidth $(cost bandwidth_MBps) MB/s (4 MiB messages)"
echo "  one halo exchange of 2 ghost planes of a 512^2 float grid: $(cost halo_bytes) bytes sent and received, $(cost halo_us) us"
echo "  one ordered sum of 512 plane partials (Allgatherv, then summed in plane order): $(cost sum_us) us"
echo "  one MPI maximum of one double: $(cost max_us) us"
echo
# counts of one 256^3 step at 2 ranks (advect + project, rank 0: one
# neighbour), and the compute time at 1 rank
hn=$(( $(commv adv 2 halo | cut -d, -f1) + $(commv proj 2 halo | cut -d, -f1) ))
hb=$(( $(commv adv 2 halo | cut -d, -f2) + $(commv proj 2 halo | cut -d, -f2) ))
rn=$(( $(commv adv 2 reduce | cut -d, -f1) + $(commv proj 2 reduce | cut -d, -f1) ))
rb=$(( $(commv adv 2 reduce | cut -d, -f2) + $(commv proj 2 reduce | cut -d, -f2) ))
gn=$(( $(commv adv 2 gather | cut -d, -f1) + $(commv proj 2 gather | cut -d, -f1) ))
gb=$(( $(commv adv 2 gather | cut -d, -f2) + $(commv proj 2 gather | cut -d, -f2) ))
t1=$c_fluid_1
echo "one $res^3 step at 2 ranks (rank 0): $hn halo exchanges of $hb bytes in all, $rn reductions ($rb bytes), $gn gathers ($gb bytes)"
awk -v res="$res" -v t1="$t1" -v hn="$hn" -v hb="$hb" -v rn="$rn" -v rb="$rb" -v gn="$gn" -v gb="$gb" 'BEGIN {
	alpha = 25e-6; beta = 1.1e9
	s = 512 / res; vol = s * s * s; area = s * s
	print ""
	print "projection of one 512^3 step (advect + project) on a 10 Gb/s network; assumptions:"
	printf "  - compute: the 1-rank %d^3 step (%.1f s CPU of its one thread, its frame read and written\n", res, t1
	print  "    included; CPU, not wall, as other work on a loaded machine stretches the wall time)"
	printf "    times %.0f (cells), divided evenly over the ranks (one thread each; the frame\n", vol
	print  "    read and written in place, --mpi-io); as many solver iterations at 512^3 (multigrid);"
	print  "    ghost planes add no work"
	print  "  - a message costs alpha + bytes/beta, alpha = 25 us (MPI over TCP on 10 GbE), beta = 1.1 GB/s"
	print  "    (10 Gb/s less protocol), full duplex; a rank sends to both neighbours at once"
	printf "  - halo: the %d exchanges of the measured step, each of alpha; their bytes times %.0f (plane area)\n", hn, area
	print  "    (sent and received with one neighbour) times 2 (two neighbours), half of it sent: full"
	print  "    duplex, area x bytes / beta a rank"
	printf "  - reductions: the %d of the step, each ceil(log2 P) alpha (recursive doubling), bytes x %.0f\n", rn, s
	printf "  - gathers: the %d of the step, ceil(log2 P) alpha each, their bytes x %.0f (volume), every\n", gn, vol
	print  "    rank receiving (P-1)/P of them"
	print  ""
	printf "%5s %8s %10s %9s %9s %9s %9s %8s %10s\n", "ranks", "planes", "compute s", "halo s", "reduce s", "gather s", "total s", "speedup", "efficiency"
	tc1 = t1 * vol
	n = split("8 16 64", P, " ")
	for (i = 1; i <= n; i++) {
		p = P[i]; lg = log(p) / log(2); lg = lg == int(lg) ? lg : int(lg) + 1
		tc = tc1 / p
		th = hn * alpha + hb * area / beta
		tr = rn * lg * alpha + rb * s / beta
		tg = gn * lg * alpha + gb * vol * (p - 1) / p / beta
		tt = tc + th + tr + tg
		printf "%5d %8d %10.2f %9.3f %9.3f %9.3f %9.2f %8.1f %10.2f\n", p, 512 / p, tc, th, tr, tg, tt, tc1 / tt, tc1 / tt / p
	}
}'
