# routelab: `make run` and `make test` do all set-up themselves (Debian
# packages through scripts/setup.sh), then build and run.

CC       ?= gcc
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
LDLIBS   += -lopenblas -llapacke -lgsl -lm

MODULES  := core sampling theory mc model report experiments reproduce bench cmd
SRCS     := $(filter-out cmd/routelab.c,$(wildcard $(addsuffix /*.c,$(MODULES))))
OBJS     := $(SRCS:%.c=build/%.o)
TESTSRCS := $(wildcard tests/*.c)
TESTOBJS := $(TESTSRCS:%.c=build/%.o)

BIN      := build/routelab
TESTBIN  := build/routelab-tests

.PHONY: all setup setup-data build test run bench clean layers
all: build

setup:
	@sh scripts/setup.sh

setup-data:
	@sh scripts/setup.sh --with-npm

build: setup
	@$(MAKE) --no-print-directory $(BIN)

$(BIN): build/cmd/routelab.o $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(TESTBIN): $(TESTOBJS) $(OBJS) | $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

build/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# Two test processes (--jobs 2) on two cores, each with OpenMP threads: a
# spinning barrier then waits on a thread that is not running, and a 0.1 s
# test took over 120 s in CI.  Passive waiting yields the core instead.
test: setup
	@$(MAKE) --no-print-directory $(BIN) $(TESTBIN)
	OMP_WAIT_POLICY=passive ROUTELAB=$(abspath $(BIN)) $(TESTBIN) --jobs 2

run: setup-data
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) data brown
	$(BIN) reproduce --preset quick --out results
	@echo "report: results/REPORT.md (theory report: results/theory/theory.md)"

bench: setup
	@$(MAKE) --no-print-directory $(BIN)
	@echo "command: $(BIN) bench"
	@$(BIN) bench

# The include graph runs one way, downward (NOTES.md, layout).
layers:
	@sh scripts/check_layers.sh

clean:
	rm -rf build

-include $(OBJS:.o=.d) $(TESTOBJS:.o=.d) build/cmd/routelab.d
