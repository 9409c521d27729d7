#!/usr/bin/env bats
# slcconv: OBJ, PLY and STL to streams and back, grids to .vti, and every
# failure leaves no output behind.

load common
bats_require_minimum_version 1.5.0

cube_obj() {
	cat > "$1" <<'EOF'
# unit cube, quads
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f -8 -4 -1 -5
EOF
}

# The cube as STL: ascii ($2 = ascii) or binary.
cube_stl() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
V = [(0,0,0),(1,0,0),(1,1,0),(0,1,0),(0,0,1),(1,0,1),(1,1,1),(0,1,1)]
Q = [(0,3,2,1),(4,5,6,7),(0,1,5,4),(1,2,6,5),(2,3,7,6),(3,0,4,7)]
T = [t for q in Q for t in ((q[0],q[1],q[2]),(q[0],q[2],q[3]))]
if sys.argv[2] == "ascii":
    s = "solid cube\n"
    for t in T:
        s += " facet normal 0 0 0\n  outer loop\n"
        s += "".join("   vertex %g %g %g\n" % V[i] for i in t)
        s += "  endloop\n endfacet\n"
    open(sys.argv[1], "w").write(s + "endsolid cube\n")
else:
    b = b"binary cube".ljust(80, b" ") + struct.pack("<I", len(T))
    for t in T:
        b += struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *V[i]) for i in t) + b"\0\0"
    open(sys.argv[1], "wb").write(b)
EOF
}

@test "slcconv --help and --version" {
	run slcconv --help
	assert_success
	assert_output --partial "Usage: slcconv"
	assert_output --partial "--record"
	run slcconv --version
	assert_success
	assert_output --partial "sluice"
}

@test "slcconv: OBJ to stream to OBJ keeps the mesh, and OBJ text is stable" {
	cube_obj "$T/cube.obj"
	run slcconv "$T/cube.obj" -o "$T/cube.slc"
	assert_success
	run slcinfo "$T/cube.slc"
	assert_success
	assert_output --partial "mesh 'cube'"
	assert_output --partial "P            f32 x3 point 8"
	assert_output --partial "tri          u32 x3 prim 12"
	slcconv "$T/cube.slc" -o "$T/a.obj"
	grep -c '^f ' "$T/a.obj" | grep -qx 12
	grep -qx 'f 1 5 8' "$T/a.obj"   # the negative-index quad, fanned
	slcconv -n cube "$T/a.obj" -o "$T/a.slc"
	slcconv "$T/a.slc" -o "$T/b.obj"
	cmp "$T/a.obj" "$T/b.obj"
}

@test "slcconv: PLY binary and ascii round trips are byte-stable" {
	mkprim sphere --subdiv 2 --velocity 1,2,3 -o "$T/s.slc"
	slcconv "$T/s.slc" -o "$T/b1.ply"
	sed -n 2p "$T/b1.ply" | grep -qx "format binary_little_endian 1.0"
	slcconv --name sphere "$T/b1.ply" -o "$T/b.slc"
	run slcinfo "$T/b.slc"
	assert_output --partial "v            f32 x3 point 162  min 1 max 3 mean 2"
	slcconv "$T/b.slc" -o "$T/b2.ply"
	cmp "$T/b1.ply" "$T/b2.ply"
	slcconv --ascii "$T/s.slc" -o "$T/a1.ply"
	grep -qx 'format ascii 1.0' "$T/a1.ply"
	slcconv --name sphere "$T/a1.ply" --to slc | slcconv --from slc --to ply --ascii > "$T/a2.ply"
	cmp "$T/a1.ply" "$T/a2.ply"
	# the same mesh either way
	slcconv -n s "$T/a1.ply" -o "$T/a1.obj"
	slcconv -n s "$T/b1.ply" -o "$T/b1.obj"
	cmp "$T/a1.obj" "$T/b1.obj"
}

@test "slcconv: STL ascii and binary weld to the same 8-vertex cube" {
	cube_stl "$T/a.stl" ascii
	cube_stl "$T/b.stl" binary
	slcconv -n cube "$T/a.stl" -o "$T/a.obj"
	slcconv -n cube "$T/b.stl" -o "$T/b.obj"
	cmp "$T/a.obj" "$T/b.obj"
	run slcconv "$T/b.stl"
	assert_success
	run sh -c "slcconv --from stl < '$T/b.stl' | slcinfo"
	assert_output --partial "mesh 'mesh'"
	assert_output --partial "P            f32 x3 point 8"
	assert_output --partial "tri          u32 x3 prim 12"
}

@test "slcconv: a PLY with vertices only becomes particles, and back" {
	printf 'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nproperty float radius\nend_header\n0 0 0 0.1\n1 0 0 0.2\n0 1 0 0.3\n' > "$T/p.ply"
	run sh -c "slcconv '$T/p.ply' | slcinfo"
	assert_success
	assert_output --partial "particles 'p'"
	assert_output --partial "radius       f32 x1 point 3"
	slcconv "$T/p.ply" -o "$T/p.slc"
	slcconv --ascii "$T/p.slc" -o "$T/q.ply"
	grep -qx 'property float radius' "$T/q.ply"
	grep -qx '1 0 0 0.200000003' "$T/q.ply"
	run grep -c face "$T/q.ply"
	assert_output 0
}

@test "slcconv: a bad face index names file and line, exit 1, no output" {
	# 8 vertices; line 12 names vertex 9
	printf 'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nf 1 2 3\nf 1 3 4\n# next\nf 1 2 9\n' > "$T/bad.obj"
	cd "$T"
	run slcconv bad.obj -o out.slc
	assert_failure 1
	assert_output "slcconv: bad.obj: line 12: face index 9 out of range (8 vertices)"
	[ ! -e out.slc ]
	[ -z "$(ls -A | grep tmp)" ]
	echo previous > out.slc
	run slcconv bad.obj -o out.slc
	assert_failure 1
	[ "$(cat out.slc)" = previous ]
}

@test "slcconv: malformed and empty inputs are refused with exit 1" {
	cd "$T"
	: > empty.obj
	run slcconv empty.obj -o x.slc
	assert_failure 1
	assert_output "slcconv: empty.obj: empty input"
	: > empty.stl
	run slcconv empty.stl -o x.slc
	assert_failure 1
	assert_output "slcconv: empty.stl: empty input"
	printf 'ply\nformat binary_little_endian 1.0\nelement vertex 100000000\nproperty float x\nproperty float y\nproperty float z\nend_header\nxyz' > huge.ply
	run slcconv huge.ply -o x.slc
	assert_failure 1
	assert_output --partial "slcconv: huge.ply: byte 123: element 'vertex' declares 100000000 instances"
	printf 'solid x\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 nan\nendloop\nendfacet\nendsolid\n' > nan.stl
	run slcconv nan.stl -o x.slc
	assert_failure 1
	assert_output "slcconv: nan.stl: line 6: bad number 'nan'"
	head -c 200 /dev/urandom > junk.stl
	run slcconv junk.stl -o x.slc
	assert_failure 1
	assert_output --partial "slcconv: junk.stl: byte 80: binary STL declares"
	run slcconv missing.obj -o x.slc
	assert_failure 1
	assert_output --partial "slcconv: missing.obj: "
	[ ! -e x.slc ]
}

@test "slcconv: a cell grid becomes CellData with the right extent and origin" {
	mkprim pool --res 8 --origin 1,2,3 -o "$T/pool.slc"
	slcconv --ascii -r phi "$T/pool.slc" -o "$T/phi.vti"
	python3 - "$T/phi.vti" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
img = root.find("ImageData")
assert root.get("type") == "ImageData", root.attrib
assert img.get("WholeExtent") == "0 8 0 8 0 8", img.attrib
assert [float(x) for x in img.get("Origin").split()] == [1, 2, 3], img.attrib
assert [float(x) for x in img.get("Spacing").split()] == [0.125] * 3
arr = img.find("Piece/CellData/DataArray")
assert arr.get("Name") == "phi" and arr.get("type") == "Float32"
vals = [float(x) for x in arr.text.split()]
assert len(vals) == 512, len(vals)
assert min(vals) < 0 < max(vals)
EOF
}

@test "slcconv: face grids are PointData on their samples, origin shifted" {
	mkprim pool --res 8 -o "$T/pool.slc"
	slcconv --ascii -r u "$T/pool.slc" -o "$T/u.vti"
	python3 - "$T/u.vti" <<'EOF'
import sys, xml.etree.ElementTree as ET
img = ET.parse(sys.argv[1]).getroot().find("ImageData")
assert img.get("WholeExtent") == "0 8 0 7 0 7", img.attrib
assert [float(x) for x in img.get("Origin").split()] == [0, 0.0625, 0.0625], img.attrib
arr = img.find("Piece/PointData/DataArray")
assert len(arr.text.split()) == 9 * 8 * 8
EOF
}

@test "slcconv: binary .vti has a well-formed header and exact appended blocks" {
	mkprim pool --res 8 -o "$T/pool.slc"
	slcconv -r phi "$T/pool.slc" -o "$T/phi.vti"
	slcconv "$T/pool.slc" --to vti > "$T/first.vti"
	python3 - "$T/phi.vti" "$T/first.vti" <<'EOF'
import struct, sys, xml.etree.ElementTree as ET
data = open(sys.argv[1], "rb").read()
head, rest = data.split(b"<AppendedData", 1)
root = ET.fromstring(head + b"</VTKFile>")
img = root.find("ImageData")
assert root.get("header_type") == "UInt64" and img.get("WholeExtent") == "0 8 0 8 0 8"
arr = img.find("Piece/CellData/DataArray")
assert arr.get("format") == "appended" and arr.get("offset") == "0"
blob = rest[rest.index(b"_") + 1:]
n, = struct.unpack("<Q", blob[:8])
assert n == 512 * 4, n
assert blob[8 + n:] == b"\n  </AppendedData>\n</VTKFile>\n"
vals = struct.unpack("<512f", blob[8:8 + n])
assert min(vals) < 0 < max(vals)
# with no --record the first grid of the stream (u) is written
first = open(sys.argv[2], "rb").read()
assert b'Name="u"' in first and b"PointData" in first
EOF
}

@test "slcconv: several grids placed alike share one .vti" {
	mkprim smoke --res 8 -o "$T/smoke.slc"
	names=$(slcjson "$T/smoke.slc" 'print(",".join(x["name"] for x in streams[0]["records"] if x.get("stagger") == "cell"))')
	slcconv --ascii -r "$names" "$T/smoke.slc" -o "$T/s.vti"
	n=$(echo "$names" | tr ',' '\n' | wc -l)
	[ "$(grep -c '<DataArray' "$T/s.vti")" -eq "$n" ]
	python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$T/s.vti"
	run slcconv -r u,v "$T/smoke.slc" -o "$T/uv.vti"
	assert_failure 1
	assert_output --partial "is not placed like 'u'"
	[ ! -e "$T/uv.vti" ]
}

@test "slcconv: record selection errors and NaN stop the run" {
	cd "$T"
	mkprim pool --res 4 -o pool.slc
	run slcconv -r nosuch pool.slc -o x.vti
	assert_failure 1
	assert_output "slcconv: pool.slc: no record named 'nosuch'"
	run slcconv pool.slc -o x.obj
	assert_failure 1
	assert_output "slcconv: pool.slc: no mesh or particle record to write as obj"
	run slcconv -r phi pool.slc -o x.ply
	assert_failure 1
	assert_output --partial "record 'phi' is a grid, PLY takes a mesh or particles"
	"$ROOT/build/tests/gen_stream" g.slc 0
	run slcconv -r u g.slc -o x.vti
	assert_failure 1
	assert_output --partial "field 'u' channel 'u'"
	assert_output --partial "NaN"
	[ ! -e x.vti ]
	[ ! -e x.obj ]
	[ ! -e x.ply ]
}

@test "slcconv: a damaged stream writes nothing" {
	cd "$T"
	mkprim sphere -o s.slc
	head -c 300 s.slc > cut.slc
	run slcconv cut.slc -o x.obj
	assert_failure 1
	assert_output --partial "slcconv: cut.slc: "
	[ ! -e x.obj ]
}

@test "slcconv: usage errors exit 2" {
	cd "$T"
	cube_obj cube.obj
	run slcconv cube.obj -o x.stl
	assert_failure 2
	assert_output --partial "cannot convert obj to stl"
	run slcconv cube.obj cube.obj
	assert_failure 2
	run slcconv cube.dat
	assert_failure 2
	assert_output --partial "unknown extension"
	run slcconv --to obj --from vti cube.obj
	assert_failure 2
	run slcconv --to pdf cube.obj
	assert_failure 2
	mkprim sphere -o s.slc
	run slcconv s.slc
	assert_failure 2
	assert_output --partial "say the output format"
	run slcconv -r a,b s.slc -o x.obj
	assert_failure 2
}

@test "slcconv: VTK's own XML reader opens the .vti, binary and ascii (needs python3-vtk9)" {
	/usr/bin/python3 -c 'import vtk' 2>/dev/null || skip "python3-vtk9 is not installed"
	mkprim smoke --res 12 -o "$T/smoke.slc"
	slcconv -r density,temperature "$T/smoke.slc" -o "$T/b.vti"
	slcconv --ascii -r density "$T/smoke.slc" -o "$T/a.vti"
	run /usr/bin/python3 - "$T/b.vti" "$T/a.vti" <<'PY'
import sys, vtk
for fn in sys.argv[1:]:
    r = vtk.vtkXMLImageDataReader()
    r.SetFileName(fn)
    r.Update()
    im = r.GetOutput()
    cd = im.GetCellData()
    names = [cd.GetArrayName(a) for a in range(cd.GetNumberOfArrays())]
    print(fn.split("/")[-1], r.GetErrorCode(), im.GetDimensions(),
          round(im.GetSpacing()[0], 6), names,
          [tuple(round(x, 6) for x in cd.GetArray(n).GetRange()) for n in names])
PY
	assert_success
	# --res 12 along the smoke box's long side (2 m): 6x12x6 cells, 7x13x7 points
	max=$(slcjson "$T/smoke.slc" 'print([round(x["channels"][0]["max"], 6) for x in streams[0]["records"] if x["name"] == "density"][0])')
	assert_line "b.vti 0 (7, 13, 7) 0.166667 ['density', 'temperature'] [(0.0, $max), (0.0, $max)]"
	assert_line "a.vti 0 (7, 13, 7) 0.166667 ['density'] [(0.0, $max)]"
}

@test "slcconv: a record name with newlines adds nothing to OBJ, PLY or VTI" {
	cube_obj "$T/cube.obj"
	slcconv -n $'c\nv 9 9 9\r\n# \e[2J' "$T/cube.obj" -o "$T/c.slc"
	slcconv "$T/c.slc" -o "$T/c.obj"
	slcconv "$T/c.slc" -o "$T/c.ply"
	slcconv -a "$T/c.slc" -o "$T/a.ply"
	# read back: the cube's 8 points and 12 triangles, nothing added
	for f in c.obj c.ply a.ply; do
		slcconv -n back "$T/$f" -o "$T/b.slc"
		slcjson "$T/b.slc" 'c = {x["name"]: x["count"] for x in r["back"]["channels"]}
assert c["P"] == 8 and c["tri"] == 12, c'
	done
	grep -qxF "# sluice mesh 'c\\nv 9 9 9\\r\\n# \\x1b[2J': 8 vertices, 12 triangles" "$T/c.obj"
	grep -qxF "comment sluice mesh 'c\\nv 9 9 9\\r\\n# \\x1b[2J'" "$T/a.ply"
	# a grid name: escaped, then XML-escaped, in the DataArray's Name
	mkprim sphere --subdiv 1 -o "$T/s.slc"
	mklevelset --res 16 --name $'s"/>\n<x' -o "$T/g.slc" "$T/s.slc"
	slcconv --ascii -r $'s"/>\n<x' "$T/g.slc" -o "$T/g.vti"
	python3 - "$T/g.vti" <<'EOF2'
import sys, xml.etree.ElementTree as ET
arrs = ET.parse(sys.argv[1]).getroot().findall("ImageData/Piece/CellData/DataArray")
assert [a.get("Name") for a in arrs] == ['s"/>\\n<x'], [a.get("Name") for a in arrs]
EOF2
}

@test "slcconv: unknown PLY header lines are skipped with a warning, -q silences it" {
	cd "$T"
	printf 'ply\nformat ascii 1.0\ncomment made by hand\nCreated by x\033[2J  \nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n' > w.ply
	run_split slcconv w.ply -o w.slc
	assert_success
	[ "$stderr" = 'slcconv: w.ply: line 4: unknown PLY header line skipped: Created by x\x1b[2J' ]
	slcjson w.slc 'c = {x["name"]: x["count"] for x in r["w"]["channels"]}
assert c["P"] == 3 and c["tri"] == 1, c'
	run_split slcconv -q w.ply -o q.slc
	assert_success
	[ -z "$stderr" ]
	slcjson q.slc 'assert r["w"]["channels"][0]["count"] == 3'
	sed 's/^comment made by hand$/obj_info x\nbogus 1/' w.ply > w2.ply
	run_split slcconv w2.ply -o w2.slc
	assert_success
	[ "$stderr" = 'slcconv: w2.ply: line 4: unknown PLY header line skipped: bogus 1 (and 1 more)' ]
}

# --- OpenVDB out ----------------------------------------------------------

# Debian's python3-openvdb is a module of Debian's python3 (pyopenvdb).
VDBPY=/usr/bin/python3

# Read FRAME.vdb back with OpenVDB's own reader and hold it against
# FRAME.slc (tests/slcgrid.py): the grids, names and classes; the
# transform of each (voxel (i,j,k) at the sample's world position); every
# sample's value and activity (level sets: background = BAND dx, values
# beyond it +-background and inactive, every inactive value +-background;
# other grids: background 0, zero samples inactive); the values at 1000
# random world points, trilinear from OpenVDB's voxels against trilinear
# from the stream's samples, to float rounding; OpenVDB's mesher finds the
# level sets' surfaces where sluice's phi changes sign.  Prints the grids
# as NAME:CLASS.
vdbcheck() {
	"$VDBPY" - "$1.slc" "$1.vdb" "$2" "$ROOT/tests" <<'EOF'
import math, random, sys
sys.path.insert(0, sys.argv[4])
import pyopenvdb as vdb
import slcgrid

slc, vdbf, band = sys.argv[1], sys.argv[2], float(sys.argv[3])
G = slcgrid.grids(slc)
grids, _ = vdb.readAll(vdbf)
V = {g.name: g for g in grids}
assert sorted(V) == sorted(G) and len(V) == len(grids), (sorted(V), sorted(G))
OFF = slcgrid.OFFSETS
LS = {"phi", "solid", "solid_next", "source", "sdf"}
rng = random.Random(1)


def trilinear(x, dims, value):
    """Trilinear interpolation at index-space x of value(i, j, k)."""
    b = [max(0, min(int(math.floor(x[a])), dims[a] - 2)) for a in range(3)]
    s = 0.0
    for c in range(8):
        d = (c & 1, c >> 1 & 1, c >> 2 & 1)
        w = 1.0
        for a in range(3):
            w *= (x[a] - b[a]) if d[a] else 1 - (x[a] - b[a])
        s += w * value(b[0] + d[0], b[1] + d[1], b[2] + d[2])
    return s, b


for name, ((ni, nj, nk), st, o, dx, vals, _) in sorted(G.items()):
    g = V[name]
    dims = (ni, nj, nk)
    ls = name in LS and st == 0
    want = "level set" if ls else "fog volume" if st == 0 else "unknown"
    assert g.gridClass == want, (name, g.gridClass)
    bg = float(band * dx) if ls else 0.0
    assert abs(g.background - bg) <= 1e-7 * max(bg, 1), (name, g.background, bg)
    bg = g.background
    assert all(abs(s - dx) <= 1e-12 * dx for s in g.transform.voxelSize())

    def pos(i, j, k):
        return (o[0] + dx * (i + OFF[st][0]), o[1] + dx * (j + OFF[st][1]),
                o[2] + dx * (k + OFF[st][2]))
    for ijk in ((0, 0, 0), (ni - 1, nj - 1, nk - 1), (3, 1, 2)):
        w = g.transform.indexToWorld(ijk)
        assert all(abs(a - b) <= 1e-12 for a, b in zip(w, pos(*ijk))), (name, ijk, w)

    def clamp(v):
        return v if not ls or abs(v) < bg else math.copysign(bg, v)

    def sample(i, j, k):
        return vals[i + ni * (j + nj * k)]
    # every sample as OpenVDB should hold it
    acc = g.getConstAccessor()
    nband = 0
    for k in range(nk):
        for j in range(nj):
            for i in range(ni):
                v = sample(i, j, k)
                got = acc.getValue((i, j, k))
                assert got == clamp(v), (name, (i, j, k), got, v)
                on = abs(v) < bg if ls else v != 0
                assert acc.isValueOn((i, j, k)) == on, (name, (i, j, k), v)
                nband += on
    assert nband == g.activeVoxelCount(), (name, nband, g.activeVoxelCount())
    if ls:
        assert nband > 0, name
        for it in g.citerOffValues():
            assert abs(it["value"]) == bg, (name, it)
    # 1000 random world points between the first and the last sample: the
    # stream's samples (clamped to the band) against OpenVDB's voxels found
    # through OpenVDB's transform
    lo, hi = pos(0, 0, 0), pos(ni - 1, nj - 1, nk - 1)
    scale = max(max(map(abs, vals)), bg)
    inband = 0
    for _ in range(1000):
        p = [lo[a] + rng.random() * (hi[a] - lo[a]) for a in range(3)]
        s, b = trilinear([(p[a] - lo[a]) / dx for a in range(3)], dims,
                         lambda i, j, k: clamp(sample(i, j, k)))
        s2, _ = trilinear(g.transform.worldToIndex(p), dims,
                          lambda i, j, k: acc.getValue((i, j, k)))
        assert abs(s - s2) <= 1e-6 * scale, (name, p, s, s2)
        inband += all(clamp(v) == v for v in (
            sample(b[0] + (c & 1), b[1] + (c >> 1 & 1), b[2] + (c >> 2 & 1)) for c in range(8)))
    if ls:
        # points where all eight samples are the grid's own phi
        assert inband > 50, (name, inband)
        # OpenVDB's mesher: its vertices lie in cells where phi changes
        # sign, or (where phi is negative at the last samples, the water
        # against the domain's walls) in the cell beyond them: outside the
        # samples a level set is +background, outside
        pts = g.convertToPolygons()[0]
        assert len(pts) > 0, name
        for p in pts[::max(1, len(pts) // 200)]:
            x = [(p[a] - lo[a]) / dx for a in range(3)]
            if not all(0 <= x[a] <= dims[a] - 1 for a in range(3)):
                assert all(-1 <= x[a] <= dims[a] for a in range(3)), (name, list(p))
                continue
            b = [max(0, min(int(math.floor(x[a])), dims[a] - 2)) for a in range(3)]
            c8 = [sample(b[0] + (c & 1), b[1] + (c >> 1 & 1), b[2] + (c >> 2 & 1))
                  for c in range(8)]
            assert min(c8) <= 0 <= max(c8), (name, list(p), c8)
print(" ".join("%s:%s" % (n, V[n].gridClass.replace(" ", "_")) for n in sorted(V)))
EOF
}

@test "slcconv: a smoke frame to .vdb: density and temperature fog volumes, source a level set, read back by OpenVDB" {
	mkprim smoke --res 16 --box 1,1,1 --origin 0.3,-0.2,0.1 |
		advect --source source --source-velocity 0,1.5,0 --gravity 0,0,0 -o "$T/smoke.slc"
	slcconv "$T/smoke.slc" -o "$T/smoke.vdb"
	run vdbcheck "$T/smoke" 3
	assert_success
	assert_output "density:fog_volume source:level_set temperature:fog_volume u:unknown v:unknown w:unknown"
}

@test "slcconv: a water frame to .vdb: phi and solid narrow-band level sets, read back by OpenVDB" {
	mkprim pool --res 16 --origin 0.3,-0.2,0.1 --drop-radius 0.1 --drop-center 0.8,0.6,0.6 \
		-o "$T/pool.slc"
	mkprim sphere --radius 0.15 --center 0.6,0,0.5 | mklevelset --like "$T/pool.slc" > "$T/solid.slc"
	cat "$T/pool.slc" "$T/solid.slc" | advect -o "$T/water.slc"
	slcconv "$T/water.slc" -o "$T/water.vdb"
	run vdbcheck "$T/water" 3
	assert_success
	assert_output "phi:level_set solid:level_set u:unknown v:unknown w:unknown"
	# a wider band: background 5 dx; only the records asked for
	slcconv --band 5 -r phi,solid "$T/water.slc" -o "$T/w5.vdb"
	slccat --only phi,solid "$T/water.slc" > "$T/w5.slc"
	run vdbcheck "$T/w5" 5
	assert_success
	assert_output "phi:level_set solid:level_set"
}

@test "slcconv: .vdb bytes are the same every run and on any thread count; bad requests refused" {
	mkprim pool --res 8 -o "$T/pool.slc"
	OMP_NUM_THREADS=1 slcconv "$T/pool.slc" -o "$T/a.vdb"
	OMP_NUM_THREADS=2 slcconv "$T/pool.slc" --to vdb > "$T/b.vdb"
	cmp "$T/a.vdb" "$T/b.vdb"
	mkprim sphere --subdiv 1 | mklevelset --res 16 --occlusion -o "$T/s.slc"
	run slcconv -r solid_vel "$T/s.slc" -o "$T/x.vdb"
	assert_failure 1
	assert_output --partial "record 'solid_vel' is not a grid of one f32 or f64 channel"
	run slcconv --band 0 "$T/pool.slc" -o "$T/x.vdb"
	assert_failure 2
	run slcconv "$T/a.vdb" -o "$T/x.slc"
	assert_failure 2
	assert_output --partial "vdb is an output format only"
	[ ! -e "$T/x.vdb" ] && [ ! -e "$T/x.slc" ]
}
