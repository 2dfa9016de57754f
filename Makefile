# routelab: `make run` and `make test` do all set-up themselves (Debian
# packages through scripts/setup.sh), then build and run.

# MPI is one floor, par/ (NOTES.md §0.1, §12.1): its objects alone are
# compiled with OpenMPI's wrapper around gcc, and the programs are linked with
# it; every other object is plain gcc (no folder but par/ includes mpi.h:
# scripts/check_layers.sh).  The same binary runs alone or as the ranks of
# `mpirun` / `srun`.  `make floor` proves that the floors below par/ compile
# and link without MPI.
CC       := gcc
MPICC    := mpicc
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
ARCH     := $(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
# The OpenMP build of OpenBLAS: BLAS calls made inside our own parallel
# regions then run single-threaded instead of oversubscribing the cores.
# RPATH (not RUNPATH) so that liblapacke's own libblas/liblapack resolve to
# the same OpenBLAS, whatever the system's alternatives point to.
BLASDIR  := /usr/lib/$(ARCH)/openblas-openmp
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -fopenmp -Wall -Wextra -MMD -MP \
            -I/usr/include/$(ARCH)/openblas-openmp
LDFLAGS  += -fopenmp -L$(BLASDIR) -Wl,--disable-new-dtags,-rpath,$(BLASDIR)
# The numerical libraries (every floor), then SentencePiece's (model/spm.cc).
MATHLIBS := -lopenblas -llapacke -lgsl -lm
LDLIBS   += $(MATHLIBS) $(SPMLIBS)
# SentencePiece has only a C++ API: one shim (model/spm.cc, extern "C") is
# compiled with the C++ compiler and the program links its runtime.
CXX      ?= g++
CXXFLAGS ?= -O2 -g
CXXFLAGS += -std=c++17 -Wall -Wextra -MMD -MP
SPMLIBS  := -lsentencepiece_train -lsentencepiece -lstdc++

MODULES  := core par sampling theory mc model report experiments reproduce bench cmd
SRCS     := $(filter-out cmd/routelab.c,$(wildcard $(addsuffix /*.c,$(MODULES))))
CXXSRCS  := $(wildcard $(addsuffix /*.cc,$(MODULES)))
OBJS     := $(SRCS:%.c=build/%.o) $(CXXSRCS:%.cc=build/%.o)
TESTSRCS := $(wildcard tests/*.c)
TESTOBJS := $(TESTSRCS:%.c=build/%.o)

BIN      := build/routelab
TESTBIN  := build/routelab-tests

.PHONY: all setup setup-data setup-fuzz setup-faults build test run bench clean layers floor fuzz fuzz-build sanitize faults \
        lib install pytest test-slurm setup-slurm
all: build

setup:
	@sh scripts/setup.sh

setup-data:
	@sh scripts/setup.sh --with-npm

setup-fuzz:
	@sh scripts/setup.sh --with-fuzz

setup-faults:
	@sh scripts/setup.sh --with-faults

setup-slurm:
	@sh scripts/setup.sh --with-slurm

build: setup
	@$(MAKE) --no-print-directory $(BIN)

$(BIN): build/cmd/routelab.o $(OBJS)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(TESTBIN): $(TESTOBJS) $(OBJS) | $(BIN)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

# make test-slurm (run by .ci/run after make test): docs/slurm/paper.sbatch
# submitted to a one-node Slurm cluster started on this machine
# (scripts/slurm_cluster.sh), cancelled mid-run, resubmitted, and compared
# byte for byte with one process (tests/slurm/test_slurm.c, NOTES.md §12.9).
# Its own binary: it needs root, slurm-wlm and munge, which make test does not.
SLURMTESTBIN := build/routelab-slurm-tests
$(SLURMTESTBIN): build/tests/slurm/test_slurm.o build/tests/helpers.o $(OBJS) | $(BIN)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

test-slurm: setup-slurm
	@$(MAKE) --no-print-directory $(BIN) $(SLURMTESTBIN)
	OMP_WAIT_POLICY=passive ROUTELAB=$(abspath $(BIN)) $(SLURMTESTBIN) --jobs 1

build/par/%.o: CC := $(MPICC)

# The model's elementwise loops (LayerNorm, biases, AdamW, residuals, rotations)
# vectorized: GCC's -O2 vectorizes only loops of a known count, and sqrtf keeps
# a scalar call for errno.  Neither flag reorders a sum or changes a rounding
# (a float reduction is not vectorized without -fassociative-math, and sqrt is
# correctly rounded either way): the same bytes (NOTES.md §16.5).
MODEL_VECFLAGS := -ftree-vectorize -fvect-cost-model=dynamic -fno-math-errno
build/model/%.o build/lib/model/%.o: CFLAGS += $(MODEL_VECFLAGS)
# The same for the mix-or-stay search's rows of powers chi^delta
# (theory/mixstay.c): elementwise products, no sum reordered, the same bytes;
# measured 17% less CPU time for the study's head (NOTES: mixstay).
build/theory/mixstay.o build/lib/theory/mixstay.o: CFLAGS += $(MODEL_VECFLAGS)

build/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

build/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c -o $@ $<

# Two test processes (--jobs 2) on two cores, each with OpenMP threads: a
# spinning barrier then waits on a thread that is not running, and a 0.1 s
# test took over 120 s in CI.  Passive waiting yields the core instead.
test: setup
	@$(MAKE) --no-print-directory $(BIN) $(TESTBIN) floor lib
	OMP_WAIT_POLICY=passive ROUTELAB=$(abspath $(BIN)) $(TESTBIN) --jobs 2
	@$(MAKE) --no-print-directory pytest

# ---- the library (NOTES.md §18) -------------------------------------------
# libroutelab.so.MAJOR.MINOR (soname libroutelab.so.MAJOR) and libroutelab.a
# from the library floors, compiled with -fPIC into build/lib/ and without
# MPI: par/par.c under -DRL_NO_MPI is the one-process job it is at run time
# when no launcher started it (MPI is the command layer's alone).  The ABI
# numbers are read from include/routelab/version.h, where they are written.
ABI_MAJOR  := $(shell sed -n 's/^\#define ROUTELAB_ABI_MAJOR //p' include/routelab/version.h)
ABI_MINOR  := $(shell sed -n 's/^\#define ROUTELAB_ABI_MINOR //p' include/routelab/version.h)
LIBMODULES := core par sampling theory mc model
LIBDIR     := build/lib
LIBSRCS    := $(wildcard $(addsuffix /*.c,$(LIBMODULES)))
LIBCXXSRCS := $(wildcard $(addsuffix /*.cc,$(LIBMODULES)))
LIBOBJS    := $(LIBSRCS:%.c=$(LIBDIR)/%.o) $(LIBCXXSRCS:%.cc=$(LIBDIR)/%.o)
SONAME     := libroutelab.so.$(ABI_MAJOR)
SOLIB      := build/libroutelab.so.$(ABI_MAJOR).$(ABI_MINOR)
ALIB       := build/libroutelab.a
PCFILE     := build/routelab.pc
PREFIX     ?= /usr/local
DESTDIR    ?=

lib: $(SOLIB) build/libroutelab.so $(ALIB) $(PCFILE)

$(SOLIB): $(LIBOBJS)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/libroutelab.so: $(SOLIB)
	ln -sf $(notdir $(SOLIB)) build/$(SONAME)
	ln -sf $(SONAME) $@

$(ALIB): $(LIBOBJS)
	rm -f $@
	ar rcs $@ $^

$(LIBDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -DRL_NO_MPI -c -o $@ $<

$(LIBDIR)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -fPIC -c -o $@ $<

# routelab.pc for prefix $(1) into file $(2): Libs links the shared library;
# Libs.private names what a static link needs besides it.
define write_pc
	@mkdir -p $(dir $(2))
	printf '%s\n' 'prefix=$(1)' 'exec_prefix=$${prefix}' 'libdir=$${exec_prefix}/lib' \
	    'includedir=$${prefix}/include' '' 'Name: routelab' \
	    'Description: closed forms, samplers, Monte Carlo kernels and models of routelab' \
	    'Version: $(ABI_MAJOR).$(ABI_MINOR)' 'Cflags: -I$${includedir}' \
	    'Libs: -L$${libdir} -lroutelab' \
	    'Libs.private: -fopenmp -L$(BLASDIR) -Wl,-rpath,$(BLASDIR) $(MATHLIBS) $(SPMLIBS)' >$(2)
endef

$(PCFILE): Makefile include/routelab/version.h
	$(call write_pc,$(PREFIX),$@)

# make install PREFIX=... DESTDIR=...: the libraries, the headers as
# <routelab/...>, and routelab.pc (its prefix: PREFIX, without DESTDIR).
install: lib
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/routelab
	install -m 644 include/routelab/*.h $(DESTDIR)$(PREFIX)/include/routelab/
	install -m 755 $(SOLIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(notdir $(SOLIB)) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libroutelab.so
	install -m 644 $(ALIB) $(DESTDIR)$(PREFIX)/lib/
	$(call write_pc,$(PREFIX),$(DESTDIR)$(PREFIX)/lib/pkgconfig/routelab.pc)

# The Python module's tests (python/tests) against this build's library and
# binary, with Debian's interpreter (python3-numpy, python3-pytest).
pytest: lib $(BIN)
	PYTHONPATH=python ROUTELAB_LIB=$(abspath $(SOLIB)) ROUTELAB=$(abspath $(BIN)) \
	    /usr/bin/python3 -m pytest -q python/tests

run: setup-data
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) data brown
	$(BIN) reproduce --preset quick --out results
	@echo "report: results/REPORT.md (theory report: results/theory/theory.md)"

bench: setup
	@$(MAKE) --no-print-directory $(BIN)
	@echo "command: $(BIN) bench"
	@$(BIN) bench
	@sh scripts/bench_ranks.sh $(BIN)

# The include graph runs one way, downward (NOTES.md, layout).
# kill -9 at random moments of train, reproduce, data and theory (after a
# random delay, and as the command enters its k-th rename: strace), then the
# same command again: identical outputs, no leftovers (not in CI: minutes).
# FAULTS_TRIALS per command, FAULTS_SEED (default: the time, printed),
# FAULTS_COMMANDS a subset of "train reproduce data-text data-bpe theory".
FAULTS_TRIALS ?= 5
FAULTS_SEED ?=
FAULTS_COMMANDS ?=
faults: setup-faults
	@$(MAKE) --no-print-directory $(BIN)
	ROUTELAB=$(abspath $(BIN)) sh scripts/faults.sh $(FAULTS_TRIALS) $(or $(FAULTS_SEED),$$(date +%s)) \
	    $(if $(FAULTS_COMMANDS),"$(FAULTS_COMMANDS)")

layers:
	@sh scripts/check_layers.sh

# The ground floor without MPI: core/, sampling/ and theory/ compiled with
# plain gcc and no MPI include path in build-floor/, and tests/floor/floor.c
# linked against all their objects without libmpi; it must run, print its
# line, and stop through core's own exit (no job installed): one line, status 2.
FLOORCC   := gcc
FLOORDIR  := build-floor
FLOORSRCS := $(wildcard $(addsuffix /*.c,core sampling theory))
FLOOROBJS := $(FLOORSRCS:%.c=$(FLOORDIR)/%.o)
FLOORLINE := routelab: floor: core stops a job of one without MPI

floor: $(FLOORDIR)/floor
	@if readelf -d $< | grep -q 'NEEDED.*libmpi'; then echo "floor: $< needs libmpi"; exit 1; fi
	@st=0; $< 2>$(FLOORDIR)/floor.err || st=$$?; \
	 if [ $$st != 2 ] || [ "$$(cat $(FLOORDIR)/floor.err)" != "$(FLOORLINE)" ]; then \
	     echo "floor: status $$st, stderr:"; cat $(FLOORDIR)/floor.err; exit 1; fi
	@echo "floor: core, sampling and theory build and link with $(FLOORCC), without MPI (ok)"

$(FLOORDIR)/floor: tests/floor/floor.c $(FLOOROBJS)
	$(FLOORCC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MATHLIBS)

$(FLOORDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FLOORCC) $(CFLAGS) -c -o $@ $<

# Fuzzing (fuzz/): each fuzz/fuzz_T.c is a libFuzzer target, built with clang
# and AddressSanitizer + UBSan (every report fatal) against the library
# floors, instrumented for coverage, in build-fuzz/.  `make fuzz` runs each
# for FUZZ_SECONDS from a copy of its seeds (fuzz/corpus/T) and fails on any
# crash, leak or sanitizer report (fuzz/run.sh; FUZZ_TARGETS: a subset).
FUZZCC       := clang
FUZZDIR      := build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -O1 -g -std=c11 -D_GNU_SOURCE -fopenmp -Wall -Wextra -MMD -MP \
                -Wno-string-concatenation -Wno-pass-failed \
                -I/usr/include/$(ARCH)/openblas-openmp $(MPI_CFLAGS) $(FUZZ_SAN)
FUZZLIBSRCS  := $(wildcard $(addsuffix /*.c,core par sampling theory model))
FUZZLIBOBJS  := $(FUZZLIBSRCS:%.c=$(FUZZDIR)/%.o)
FUZZBINS     := $(patsubst fuzz/%.c,$(FUZZDIR)/%,$(wildcard fuzz/fuzz_*.c))

fuzz: setup-fuzz
	@$(MAKE) --no-print-directory fuzz-build
	@sh fuzz/run.sh $(FUZZDIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-build: $(FUZZBINS)

$(FUZZDIR)/librl.a: $(FUZZLIBOBJS)
	rm -f $@
	ar rcs $@ $^

$(FUZZDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZCC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZDIR)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h fuzz/ckpt_load.h $(FUZZDIR)/librl.a
	$(FUZZCC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZDIR)/librl.a $(LDFLAGS) $(LDLIBS) $(MPI_LIBS)

# Sanitizers in CI: the library, the tests and the binary again with gcc's
# AddressSanitizer + UBSan (every report fatal) in build-san/, and a fast
# subset of the tests run against them: the bad-input table, the parsers,
# the gradient checks and a tiny train / resume / eval.  Criterion takes one
# --filter glob, so one run per entry of SAN_FILTERS; a glob that matches no
# test fails (a renamed suite must not drop out of CI unnoticed).  Leaks are findings in
# the commands the tests run (fuzz/san_routelab.sh), not in the test runner.
SANDIR      := build-san
SAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SANOBJS     := $(SRCS:%.c=$(SANDIR)/%.o) $(CXXSRCS:%.cc=$(SANDIR)/%.o)
SANTESTOBJS := $(TESTSRCS:%.c=$(SANDIR)/%.o)
SAN_FILTERS := 'badinput/*' 'hardening_inputs/*' 'hardening_model/*' 'plot/*' \
               'cli/*' 'err/*' 'stats/*' \
               'model_schemes/names_and_configurations' 'model_train/lr_schedules' \
               'model_train/run_length_of_every_schedule_form' \
               'model_train/options_round_trip_through_the_table' \
               'model_train/short_streams_are_a_bad_input' 'model_grad/*' \
               'model_schemes/gradients' 'model_pemb/*' 'model_cli/data_files_checked' \
               'model_cli/checkpoints_and_exact_resume' 'model_cli/position_schemes' \
               'model_cli/nonfinite_loss_stops_and_keeps_checkpoint' \
               'mpi_mc/range_blocks_are_contiguous_and_balanced' \
               'mpi_mc/tree_sum_follows_the_recursive_definition' \
               'farpred_route/same_bytes_on_one_and_two_threads' 'mixstay/bad_arguments_are_einput' \
               'path_transport/*' 'eval_sampled/*' 'reproduce_stages/bad_lists_refused' \
                'reproduce_stages/detectable_and_extrapolation' 'random_hh/*'
SAN_ENV     := OMP_WAIT_POLICY=passive ROUTELAB=$(abspath fuzz/san_routelab.sh) \
               ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1

sanitize: setup
	@$(MAKE) --no-print-directory $(SANDIR)/routelab $(SANDIR)/routelab-tests
	@$(SAN_ENV) sh fuzz/san_run.sh $(SANDIR)/routelab-tests $(SAN_FILTERS)

$(SANDIR)/routelab: $(SANDIR)/cmd/routelab.o $(SANOBJS)
	$(MPICC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(SANDIR)/routelab-tests: $(SANTESTOBJS) $(SANOBJS) | $(SANDIR)/routelab
	$(MPICC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

$(SANDIR)/par/%.o: CC := $(MPICC)

$(SANDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(SANDIR)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $(SAN_FLAGS) -c -o $@ $<

clean:
	rm -rf build $(FUZZDIR) $(SANDIR) $(FLOORDIR)

-include $(OBJS:.o=.d) $(TESTOBJS:.o=.d) build/tests/slurm/test_slurm.d $(LIBOBJS:.o=.d) build/cmd/routelab.d $(FUZZLIBOBJS:.o=.d) \
           $(SANOBJS:.o=.d) $(SANTESTOBJS:.o=.d) $(SANDIR)/cmd/routelab.d $(FLOOROBJS:.o=.d)
