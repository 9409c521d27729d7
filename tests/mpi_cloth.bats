#!/usr/bin/env bats
# mpi_cloth.bats: the MPI builds of clothstep and hairstep (make MPI=1:
# bin-mpi/) over 1..4 ranks on one machine (--oversubscribe; as root in
# CI): every rank holds the whole body, the ranks share its work (cloth by
# fixed blocks, hair by runs of whole strands; the CG's direction only as
# each rank's halo), and the frames written are byte-identical to the
# serial programs'.

load common

MPI_BIN="$ROOT/bin-mpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1

mpi() {
	local np=$1
	shift
	mpirun --oversubscribe -np "$np" "$@"
}

# pipelines/drape's scene, small: a 12 x 12 sheet (lowered to 0.62 m so
# that it lands on the sphere within three frames), the sphere and the
# ground drawn as meshes and collided with as clothstep's bodies
DRAPE=(--sphere 0,0.3,0 --sphere-radius 0.3 --ground 0 --mu 0.3)

# three frames of the drape (serial, or MPI over np ranks: drape3 DIR NP)
# in $T/$dir with the same file names (provenance)
drape3() {
	local dir=$1 np=${2:-0} step=(clothstep)
	[ "$np" -gt 0 ] && step=(mpi "$np" "$MPI_BIN/clothstep")
	mkdir -p "$T/$dir" && cd "$T/$dir" || return 1
	cp "$T/f0.slc" f0.slc
	for f in 1 2 3; do
		"${step[@]}" "${DRAPE[@]}" "f$((f - 1)).slc" -o "f$f.slc" || return 1
	done
}

drape0() {
	mkprim cloth --res 12 --size 1.5 --center 0,0.62,0 -o "$T/sheet.slc"
	mkprim sphere --subdiv 2 --radius 0.291 --center 0,0.3,0 -o "$T/sphere.slc"
	mkprim box --size 3,0.02,3 --center 0,-0.012,0 --name ground -o "$T/ground.slc"
	slccat "$T/sheet.slc" "$T/sphere.slc" "$T/ground.slc" -o "$T/f0.slc"
}

@test "mpi: three drape frames at 1, 2, 3 and 4 ranks identical to serial clothstep" {
	drape0
	drape3 serial
	# the frames exercise the shared parts: CG, contacts, self pairs
	run clothstep -v "${DRAPE[@]}" "$T/serial/f2.slc" -o "$T/check.slc"
	assert_success
	assert_output --regexp "[1-9][0-9]* CG iterations, [1-9][0-9]* body contacts"
	assert_output --regexp "[1-9][0-9]* repulsion pairs"
	for np in 1 2 3 4; do
		run drape3 "mpi$np" "$np"
		assert_success
		for f in 1 2 3; do
			cmp "$T/serial/f$f.slc" "$T/mpi$np/f$f.slc"
		done
	done
}

@test "mpi: clothstep over ranks says how many share the work, rank 0 only" {
	drape0
	run mpi 3 "$MPI_BIN/clothstep" -v "${DRAPE[@]}" "$T/f0.slc" -o "$T/f1.slc"
	assert_success
	assert_output --partial "cloth: 3 ranks, seconds in their gathers"
	[ "$(grep -c 'CG iterations' <<<"$output")" = 1 ]
}

@test "mpi: clothstep over 2 ranks exchanges the CG's halo point to point, not the whole vector" {
	drape0
	run mpi 2 "$MPI_BIN/clothstep" -v "${DRAPE[@]}" "$T/f0.slc" -o "$T/f1.slc"
	assert_success
	# one halo exchange per CG iteration, each of a few rows of the
	# 13 x 13 sheet (sent and received, 24 bytes a point), not of all
	local it halo hb
	it=$(sed -n 's/.* \([0-9]*\) CG iterations.*/\1/p' <<<"$output")
	halo=$(sed -n 's/.* halo=\([0-9]*\),.*/\1/p' <<<"$output")
	hb=$(sed -n 's/.* halo=[0-9]*,\([0-9]*\),.*/\1/p' <<<"$output")
	[ "$it" -gt 0 ] && [ "$halo" -eq "$it" ]
	[ "$hb" -le $((halo * 2 * 4 * 13 * 24)) ]
}

@test "mpi: clothstep over 2 ranks needs FILE and -o FILE" {
	drape0
	run mpi 2 "$MPI_BIN/clothstep" "$T/f0.slc"
	[ "$status" -ne 0 ]
	assert_output --partial "give FILE and -o FILE"
}

# pipelines/curly's scene, small: 24 curly strands on a still head
HAIR=(--mu 0.3 --sphere 0,0,0 --sphere-radius 0.1 --bend 2e-5 --torsion 2e-5 --altitude 2e-4)

# three hair frames (hair3 DIR NP [OPTION]...), as drape3
hair3() {
	local dir=$1 np=$2 step=(hairstep)
	shift 2
	[ "$np" -gt 0 ] && step=(mpi "$np" "$MPI_BIN/hairstep")
	mkdir -p "$T/$dir" && cd "$T/$dir" || return 1
	cp "$T/h0.slc" h0.slc
	for f in 1 2 3; do
		"${step[@]}" "${HAIR[@]}" "$@" "h$((f - 1)).slc" -o "h$f.slc" || return 1
	done
}

@test "mpi: three hair frames at 1, 2, 3 and 4 ranks identical to serial hairstep" {
	mkprim hair --strands 24 --segments 10 --length 0.2 --curl 0.012,0.03 \
		--length-jitter 0.1 --cap 70 --radius 0.1 --center 0,0,0 --seed 1 -o "$T/h0.slc"
	for pre in strand jacobi; do
		hair3 "serial-$pre" 0 --precond "$pre"
		# the frames exercise the shared parts: CG, contacts, stiction
		run hairstep -v "${HAIR[@]}" --precond "$pre" "$T/serial-$pre/h2.slc" -o "$T/check.slc"
		assert_success
		assert_output --regexp "[1-9][0-9]* CG iterations.* [1-9][0-9]* body contacts"
		assert_output --regexp "[1-9][0-9]* made"
		for np in 1 2 3 4; do
			run hair3 "mpi$np-$pre" "$np" --precond "$pre"
			assert_success
			for f in 1 2 3; do
				cmp "$T/serial-$pre/h$f.slc" "$T/mpi$np-$pre/h$f.slc"
			done
		done
	done
}

# uneven_hair FILE: 64 straight strands hanging level from a row of roots,
# in pairs 0.8 mm apart (closer than the bond distance: stiction) 5 mm
# from the next pair; the first 7 are 30 segments long (61 particles with
# their virtuals), the other 57 three (7 particles)
uneven_hair() {
	python3 - "$1" <<'PY'
import os, sys
sys.path.insert(0, os.environ["ROOT"] + "/tests")
import slcrec
P, off = [], [0]
for s in range(64):
    n = 31 if s < 7 else 4
    for i in range(n):
        P += [0.005 * (s // 2) + 0.0008 * (s % 2), 0.0, 0.01 * i]
    off.append(off[-1] + n)
open(sys.argv[1], "wb").write(slcrec.strands_record("hair", P, off, []) + slcrec.END)
PY
}

@test "mpi: strands of very uneven lengths shared by whole strands of about equal particle counts, three frames at 1, 2, 3 and 4 ranks identical to serial" {
	uneven_hair "$T/u0.slc"
	# by strand count, rank 0 of 4 would hold the 7 long strands and 9
	# short ones: 7 * 61 + 9 * 7 = 490 of the 826 particles, 2.4 times
	# its share; by particle count no rank holds more than 1.25 times
	for np in 0 1 2 3 4; do
		# the same file names in every directory (provenance)
		mkdir -p "$T/u$np" && cd "$T/u$np" && cp "$T/u0.slc" f0.slc
		for f in 1 2 3; do
			if [ "$np" = 0 ]; then
				run hairstep -v "f$((f - 1)).slc" -o "f$f.slc"
			else
				run mpi "$np" "$MPI_BIN/hairstep" -v "f$((f - 1)).slc" -o "f$f.slc"
			fi
			assert_success
			[ "$np" -gt 0 ] || continue
			cmp "$T/u0/f$f.slc" "f$f.slc"
			# bonds join strands on different ranks
			assert_output --regexp "[1-9][0-9]* bonds"
			[ "$np" -gt 1 ] || continue
			share=$(sed -n 's/.*particles per rank \([0-9 ]*\), seconds.*/\1/p' <<<"$output")
			echo "ranks $np: $share"
			awk -v P="$np" '{ t = 0; m = 0; for (i = 1; i <= NF; i++) { t += $i; if ($i > m) m = $i }
				exit !(NF == P && t == 826 && m * P <= 1.25 * t) }' <<<"$share"
		done
	done
}
