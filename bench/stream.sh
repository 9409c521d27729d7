#!/bin/sh
# stream: read and write throughput of one 256^3 f32 grid record (64 MiB),
# raw and zlib, against cat moving the same bytes in the same run.
cd "$(dirname "$0")/.." || exit 2
b=build/bench/bench_stream
d=bench/out/stream
mkdir -p "$d"
best_cat() {   # best of 3 seconds for: cat $1 > $2
	best=
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		cat "$1" > "$2"
		t1=$(date +%s.%N)
		best=$(echo "$t0 $t1 $best" | awk '{t=$2-$1; if ($3=="" || t<$3) print t; else print $3}')
	done
	echo "$best"
}
printf '%-10s %10s %12s %12s %10s %10s\n' encoding "bytes" \
	"read MB/s" "write MB/s" "read/cat" "write/cat"
for level in 0 1 6; do
	f="$d/grid$level.slc"
	$b gen "$f" "$level" || exit 1
	bytes=$(stat -c %s "$f")
	tr=$($b read "$f")
	tw=$($b write "$d/out$level.slc" "$level")
	cr=$(best_cat "$f" /dev/null)
	cw=$(best_cat "$f" "$d/cat$level.slc")
	name=raw
	[ "$level" -gt 0 ] && name="zlib-$level"
	# MB/s of grid data (64 MiB decoded); fraction = cat's time / ours
	echo "$name $bytes $tr $tw $cr $cw" | awk '{raw=256*256*256*4;
		printf "%-10s %10d %12.0f %12.0f %10.2f %10.2f\n", $1, $2,
		raw/$3/1e6, raw/$4/1e6, $5/$3, $6/$4}'
done
rm -f "$d"/*.slc
echo "(read/cat, write/cat: cat's time on the same file over ours; 1.00 = as fast as cat)"
