#!/bin/sh
# mkprim: time and output size of each shape at a production-like size,
# best of 3 wall-clock runs writing to /dev/null, and the rate in elements
# (vertices, strand points or grid cells) per second.
cd "$(dirname "$0")/.." || exit 2
m=bin/mkprim
best() {   # best of 3 seconds for: mkprim "$@" > /dev/null
	b=
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		$m "$@" > /dev/null || exit 1
		t1=$(date +%s.%N)
		b=$(echo "$t0 $t1 $b" | awk '{t=$2-$1; if ($3=="" || t<$3) print t; else print $3}')
	done
	echo "$b"
}
printf '%-40s %10s %12s %8s %12s\n' "shape and options" elements bytes seconds "elements/s"
run() {   # run SHAPE OPTIONS...
	n=$($m "$@" | bin/slcinfo --no-stats |
		awk '$1 == "P" || $1 == "phi" || $1 == "density" { print $5; exit }')
	bytes=$($m "$@" | wc -c)
	t=$(best "$@")
	echo "$* $n $bytes $t" | awk '{nf=NF; s=""; for (i = 1; i <= nf - 3; i++) s = s $i " ";
		printf "%-40s %10d %12d %8.3f %12.3g\n", s, $(nf-2), $(nf-1), $nf, $(nf-2)/$nf}'
}
run sphere --subdiv 8
run box --res 256
run torus --res 1024,256
run cloth --res 512
run cup --res 1000,99
run hair --strands 20000 --segments 16
run pool --res 128
run smoke --res 128 --box 1,1,1
echo "(elements: vertices, strand points or cells of phi/density; the stream is raw f32)"
