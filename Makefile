# LexSona. `make run` starts the service; `make test` runs every test.
# Note: `go mod tidy` fails on a test-only dependency of modernc.org/sqlite that
# the module proxy refuses; use `go mod tidy -e`.

GO        ?= go
BIN       := bin/lexsona
CACHE     := $(CURDIR)/.cache
ORT_DIR   := $(CACHE)/ort
ORT_LIB   := $(ORT_DIR)/libonnxruntime.so.1
MODELS    := $(CACHE)/models
SHARED    ?= $(CURDIR)/../shared
TOKENIZER := $(SHARED)/models/all-MiniLM-L6-v2
PY        ?= /usr/bin/python3

export LEXSONA_ORT_LIB ?= $(ORT_LIB)

.PHONY: build run test lint bench ort fixtures bench-model deps tidy

build:
	$(GO) build -o $(BIN) ./cmd/lexsona

run: build
	./$(BIN) serve

test: deps
	$(GO) vet ./...
	$(GO) test -count=1 ./...

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

bench: deps
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# Everything the tests need that is not Go: ONNX Runtime and the generated models.
deps: ort fixtures

ort: $(ORT_LIB)
$(ORT_LIB):
	bash scripts/install_ort.sh "$(ORT_DIR)"

fixtures:
	bash scripts/fixtures.sh "$(MODELS)" "$(TOKENIZER)"

bench-model:
	bash scripts/fixtures.sh --full "$(MODELS)" "$(TOKENIZER)"

tidy:
	$(GO) mod tidy -e
