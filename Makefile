# sluice: build, test, benchmark and install the toolchain.
#
#   make            programs in bin/
#   make check      every test (C tests of lib/ under ASan+UBSan, Bats tests
#                   of every program and pipeline, a short fuzz run); ends
#                   with the line "N passed, N failed"
#   make demo       build and run the default scenes, one after the other
#                   (DEMO: pipelines/smoke, then pipelines/drop)
#   make bench      run bench/*.sh and print their tables
#   make deps       install missing Debian packages (as root), or say how
#   make fuzz SECONDS=N   run every fuzz target (fuzz/fuzz_*.c: the stream
#                   and mesh readers, each stage on frames built from the
#                   fuzzer's bytes) for N seconds after replaying its
#                   regression inputs; needs clang (build-fuzz/)
#   make install PREFIX=/usr/local
#   make MPI=1      the MPI builds of the stages that run over many ranks
#                   (advect, project, clothstep, hairstep) in bin-mpi/, from the same sources
#                   compiled by mpicc with -DSLC_MPI and lib/comm/, and
#                   the C tests of lib/comm/ in build-mpi/tests/ (run by
#                   tests/mpi.bats under mpirun); `make check` builds them

PREFIX ?= /usr/local
DEMO ?= smoke drop
SECONDS ?= 60
CC ?= cc
CFLAGS ?= -O2 -g
BUILD ?= build
BIN ?= bin
SAN ?=
MPI ?=
# the stages with an MPI build, and its C tests
MPI_TOOLS := advect project clothstep hairstep

ifeq ($(MPI),1)
CC := mpicc
BUILD := build-mpi
BIN := bin-mpi
MPI_DEF := -DSLC_MPI
endif

# clang reports a `#pragma omp simd` loop it could not vectorize as a
# warning (-Wpass-failed), as it does for every such loop under the
# sanitizers: a missed optimization, not a defect, so not an error.
CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -q clang && echo 1)
CC_WARN := $(if $(CC_IS_CLANG),-Wno-pass-failed)

ALL_CFLAGS = -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror $(CC_WARN) \
	     -fopenmp -Ilib $(MPI_DEF) $(SAN) $(CFLAGS)
LDLIBS = -lpng -lzstd -ldeflate -lz -lm
# lib/io/vdb.cpp, the one C++ file (OpenVDB 10 from Debian's libopenvdb-dev,
# for slcconv's .vdb): g++ (clang++ beside clang, as the fuzz build's
# sanitizers want), and slcconv alone links OpenVDB, the TBB and Imath
# symbols its headers inline, and the C++ runtime
CXX := $(if $(CC_IS_CLANG),clang++,g++)
ALL_CXXFLAGS = -std=c++17 -Wall -Wextra -Werror -Ilib $(SAN) $(CFLAGS)
VDB_LIBS = -lopenvdb -ltbb -lImath -lstdc++

ifeq ($(MPI),1)
LIB_SRC := $(wildcard lib/*/*.c)
TOOL_SRC := $(patsubst %,tools/%.c,$(MPI_TOOLS))
CTEST_SRC := $(wildcard tests/c/test_comm*.c)
BENCH_SRC :=
else
# lib/comm/ (MPI) is only in the MPI builds
LIB_SRC := $(filter-out lib/comm/%,$(wildcard lib/*/*.c))
TOOL_SRC := $(filter-out tools/tool.c,$(wildcard tools/*.c))
LIB_CXX_SRC := $(wildcard lib/*/*.cpp)
CTEST_SRC := $(filter-out tests/c/test_comm%,$(wildcard tests/c/*.c))
BENCH_SRC := $(wildcard bench/*.c)
endif

LIB_OBJ := $(patsubst lib/%.c,$(BUILD)/lib/%.o,$(LIB_SRC)) \
	   $(patsubst lib/%.cpp,$(BUILD)/lib/%.o,$(LIB_CXX_SRC))
TOOLS := $(patsubst tools/%.c,$(BIN)/%,$(TOOL_SRC))
CTESTS := $(patsubst tests/c/%.c,$(BUILD)/tests/%,$(CTEST_SRC))
BENCHES := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
LIBA := $(BUILD)/libsluice.a
HDR := $(wildcard lib/*/*.h) $(wildcard tools/*.h)

.PHONY: all asan mpi check bench demo deps fuzz install clean ctests benches
.DELETE_ON_ERROR:
# objects are kept between runs, not removed as intermediates
.SECONDARY:

all: $(TOOLS) $(CTESTS) $(BENCHES)

$(BUILD)/lib/%.o: lib/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/lib/%.o: lib/%.cpp $(HDR)
	@mkdir -p $(@D)
	$(CXX) $(ALL_CXXFLAGS) -c -o $@ $<

$(BUILD)/tools/%.o: tools/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN)/%: $(BUILD)/tools/%.o $(BUILD)/tools/tool.o $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(BIN)/slcconv: LDLIBS += $(VDB_LIBS)

# (test_tool compiles tools/tool.c into itself: every test depends on it)
$(BUILD)/tests/%: tests/c/%.c tests/c/ctest.h tools/tool.c tools/tool.h $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/c -o $@ $< $(LIBA) $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(wildcard bench/*.h) $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

ctests: $(CTESTS)
benches: $(BENCHES)

# The same programs and C tests built with AddressSanitizer and UBSan.
asan:
	$(MAKE) BUILD=build-asan BIN=bin-asan CFLAGS="-O1 -g -fno-omit-frame-pointer" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" all

# The MPI builds (bin-mpi/, build-mpi/)
mpi:
	$(MAKE) MPI=1 all

check: all asan mpi
	@sh tests/run

bench: all mpi
	@sh bench/run

demo: all
	$(foreach d,$(DEMO),$(MAKE) -C pipelines/$(d) &&) true

deps:
	@sh scripts/deps

# fuzz/run builds lib/ itself with clang and libFuzzer into build-fuzz/
fuzz:
	@sh fuzz/run $(SECONDS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

# --- libsluice: the stream layer for stages written outside the tree ---
# `make lib` builds build/libsluice.a (the programs' archive) and the
# shared build/libsluice.so.MAJOR.MINOR from the same sources compiled
# again with -fPIC into build/pic/, so that the programs' objects keep
# their flags.  `make install` adds both, the public headers (PUBLIC_HDR,
# installed flat in include/sluice/ with their includes rewritten to
# sibling files), sluice.pc and man/libsluice.3.  MAJOR.MINOR are those of
# SLUICE_VERSION (tools/tool.h, what --version prints); the soname is
# libsluice.so.MAJOR: a change that breaks the public API needs a new
# major version (man/libsluice.3, "Versions").
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
SLUICE_VERSION := $(shell sed -n 's/^.define SLUICE_VERSION "\(.*\)"/\1/p' tools/tool.h)
SLUICE_MAJOR := $(word 1,$(subst ., ,$(SLUICE_VERSION)))
SLUICE_MINOR := $(word 2,$(subst ., ,$(SLUICE_VERSION)))
LIBSO_NAME := libsluice.so.$(SLUICE_MAJOR)
LIBSO_FILE := $(LIBSO_NAME).$(SLUICE_MINOR)
LIBSO := $(BUILD)/$(LIBSO_FILE)
PIC_OBJ := $(patsubst lib/%.c,$(BUILD)/pic/lib/%.o,$(LIB_SRC))
# the public API (man/libsluice.3): every header it needs, and no other
PUBLIC_HDR := lib/core/err.h lib/core/slc.h lib/core/meta.h lib/core/name.h \
	      lib/core/frame.h lib/core/gridplace.h lib/grid/field.h include/sluice/sluice.h

.PHONY: lib install-lib

lib: $(LIBA) $(LIBSO)

$(BUILD)/pic/lib/%.o: lib/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<

$(LIBSO): $(PIC_OBJ)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,$(LIBSO_NAME) -o $@ $^ $(LDLIBS)

install: install-lib

install-lib: lib
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/sluice \
		$(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIBSO_FILE) $(DESTDIR)$(LIBDIR)/$(LIBSO_NAME)
	ln -sf $(LIBSO_NAME) $(DESTDIR)$(LIBDIR)/libsluice.so
	for h in $(PUBLIC_HDR); do \
		sed 's|^#include "[a-z]*/\([a-z_]*\.h\)"|#include "\1"|' $$h \
			> $(DESTDIR)$(INCLUDEDIR)/sluice/$${h##*/} && \
		chmod 644 $(DESTDIR)$(INCLUDEDIR)/sluice/$${h##*/} || exit 1; \
	done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(SLUICE_VERSION)|' \
	    -e 's|@LIBS_PRIVATE@|-fopenmp $(LDLIBS)|' sluice.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/sluice.pc
	install -m 644 man/libsluice.3 $(DESTDIR)$(PREFIX)/share/man/man3/

clean:
	rm -rf build build-asan build-fuzz build-mpi bin bin-asan bin-mpi
