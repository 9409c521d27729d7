#!/bin/sh
# stream: bytes and write / read throughput of a 128^3 smoke frame and a
# 128^3 water frame, raw, zlib-1 and zstd at two levels, in one run, with
# the goals beside (formats/slc.md, encodings 0-2):
#   zstd writes at least 10x faster than zlib-1, at a ratio at least as good
#   zstd reads at least 3x faster than zlib-1
#   raw reading at least 0.8 of cat's speed on the same file
# The smoke frame is the pipelines/smoke scene after STEPS (default 3)
# steps of advect | project, the water frame a pool (mkprim pool) after one.
# MB/s are of decoded payload (the raw file's bytes) per second: the best
# of 7 in-process runs of bench_stream (every record encoded and written,
# or read, checked and decoded); cat is the best of 9 runs of
# `cat FILE > /dev/null` on the raw file, timed from the shell (its
# process start included, a few ms of its time).
cd "$(dirname "$0")/.." || exit 2
b=build/bench/bench_stream
d=bench/out/stream
n=${RES:-128}
steps=${STEPS:-3}
mkdir -p "$d"
export PATH="$PWD/bin:$PATH"

# the best of 9 seconds of: cat $1 > /dev/null
best_cat() {
	best=
	for _ in 1 2 3 4 5 6 7 8 9; do
		t0=$(date +%s.%N)
		cat "$1" > /dev/null
		t1=$(date +%s.%N)
		best=$(echo "$t0 $t1 $best" | awk '{t=$2-$1; if ($3=="" || t<$3) print t; else print $3}')
	done
	echo "$best"
}

# the frames
mkprim smoke --res "$n" --box 1,1,1 --center 0.5,0.12,0.5 --radius 0.08 -o "$d/src.slc" &&
	mkprim sphere --center 0.5,0.45,0.5 --radius 0.14 --subdiv 4 -o "$d/sph.slc" &&
	mklevelset --like "$d/src.slc" --occlusion "$d/src.slc" "$d/sph.slc" -o "$d/s.slc" ||
	exit 1
i=0
while [ $i -lt "$steps" ]; do
	advect --source source --buoyancy 0.1,4 --confinement 0.3 --cfl 2 --seed 1 "$d/s.slc" |
		project -o "$d/s1.slc" || exit 1
	mv "$d/s1.slc" "$d/s.slc"
	i=$((i + 1))
done
mkprim pool --res "$n" -o "$d/w0.slc" &&
	advect --seed 1 "$d/w0.slc" | project -o "$d/w.slc" || exit 1

printf '%-6s %-8s %10s %7s %10s %10s %9s\n' frame encoding bytes ratio \
	"write MB/s" "read MB/s" "read/cat"
for f in smoke water; do
	src="$d/s.slc"
	[ $f = water ] && src="$d/w.slc"
	raw=
	for e in "raw 0" "zlib 1" "zstd 1" "zstd 3"; do
		set -- $e
		out="$d/$f-$1$2.slc"
		tw=$($b write "$src" "$out" "$1" "$2") || exit 1
		tr=$($b read "$out") || exit 1
		bytes=$(stat -c %s "$out")
		name=$1
		[ "$1" != raw ] && name="$1-$2"
		if [ "$1" = raw ]; then
			raw=$bytes
			tc=$(best_cat "$out")
		fi
		echo "$f $name $bytes $raw $tw $tr $tc" | awk '{
			c = "";
			if ($2 == "raw") c = sprintf("%9.2f", $7 / $6);
			printf "%-6s %-8s %10d %7.2f %10.0f %10.0f %9s\n", $1, $2, $3, $4 / $3,
			       $4 / $5 / 1e6, $4 / $6 / 1e6, c }' | tee -a "$d/table"
	done
done > "$d/rows"
cat "$d/rows"
# the goals, from the rows: zstd-1 against zlib-1, raw against cat
awk '{ w[$1, $2] = $5; r[$1, $2] = $6; q[$1, $2] = $4; if ($2 == "raw") c[$1] = $7; f[$1] = 1 }
END {
	for (x in f) {
		printf "%s: zstd-1 writes %.1fx zlib-1 (goal 10x) at ratio %.2f against %.2f (goal >=); ", x,
		       w[x, "zstd-1"] / w[x, "zlib-1"], q[x, "zstd-1"], q[x, "zlib-1"]
		printf "zstd-3 writes %.1fx at ratio %.2f; ", w[x, "zstd-3"] / w[x, "zlib-1"], q[x, "zstd-3"]
		printf "zstd reads %.1fx / %.1fx zlib-1 (goal 3x); raw reads at %.2f of cat (goal 0.8)\n",
		       r[x, "zstd-1"] / r[x, "zlib-1"], r[x, "zstd-3"] / r[x, "zlib-1"], c[x]
	}
}' "$d/rows"
rm -f "$d"/*.slc "$d/rows" "$d/table"
