# servebench: the two commands a new user needs are `make demo` and `make test`.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# Distributed runs on MPI (docs/distributed.md); scripts/install-deps.sh installs Open MPI.
SERVEBENCH_MPI ?= ON
ifeq ($(CI),true)
CMAKE_FLAGS += -DSERVEBENCH_WERROR=ON
endif

.PHONY: all deps build test test-asan fuzz demo bench format clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DSERVEBENCH_MPI=$(SERVEBENCH_MPI) $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	@bash scripts/install-deps.sh --test
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600
ifeq ($(CI),true)
	$(MAKE) test-asan
endif

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer (run by
# `make test` when CI=true). SERVEBENCH_SANITIZED=1 lets timing tests widen their bounds.
ASAN_DIR ?= build-asan
ASAN_BUILD_TYPE ?= Debug
test-asan: deps
	cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(ASAN_BUILD_TYPE) \
	  -DSERVEBENCH_SANITIZE=address -DSERVEBENCH_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN_DIR) -j $(JOBS)
	cd $(ASAN_DIR) && SERVEBENCH_SANITIZED=1 \
	  ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:check_initialization_order=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) --timeout 900

# libFuzzer (clang-14): each fuzz/<name>_fuzz.cc for FUZZ_SECONDS, new inputs in
# $(FUZZ_DIR)/corpus/<name>_fuzz (fuzz/corpus/ holds the seeds), crashes in $(FUZZ_DIR)/artifacts/.
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CXX ?= clang++-14
FUZZ_TARGETS = $(patsubst fuzz/%.cc,%,$(wildcard fuzz/*_fuzz.cc))
fuzz: deps
	CXX=$(FUZZ_CXX) cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSERVEBENCH_FUZZ=ON -DSERVEBENCH_BENCH=OFF
	cmake --build $(FUZZ_DIR) --target fuzzers -j $(JOBS)
	mkdir -p $(FUZZ_DIR)/artifacts
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t; \
	  if ! $(FUZZ_DIR)/$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -timeout=25 \
	      -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_DIR)/artifacts/$$t- \
	      $(FUZZ_DIR)/corpus/$$t fuzz/corpus/$$t > $(FUZZ_DIR)/$$t.log 2>&1; then \
	    tail -n 40 $(FUZZ_DIR)/$$t.log; echo "fuzz: $$t found a bug (input in $(FUZZ_DIR)/artifacts/)"; exit 1; \
	  fi; \
	  echo "fuzz: $$t: $$(grep -h 'stat::number_of_executed_units' $(FUZZ_DIR)/$$t.log)"; \
	done

demo: build
	bash scripts/demo.sh $(BUILD_DIR)/servebench

bench: deps
	cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build build-release -j $(JOBS)
	bash scripts/bench.sh build-release

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD_DIR) build-release $(ASAN_DIR) $(FUZZ_DIR)
