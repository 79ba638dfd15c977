package testenv

import "os"

// This file is the only one of the tests' helpers that reads the
// environment: the variables a CI run sets to make a missing prerequisite
// fail instead of skip, and those that point the tests at what they use.

// Required reports whether the variable env is "1": a CI run sets it so that
// a missing prerequisite fails the tests instead of skipping them.
func Required(env string) bool { return os.Getenv(env) == "1" }

// RequireORTEnv names the variable that turns every "ONNX Runtime is
// unusable" skip into a failure: CI sets it to 1.
const RequireORTEnv = "LEXSONA_REQUIRE_ORT"

// ORTRequired reports whether LEXSONA_REQUIRE_ORT=1.
func ORTRequired() bool { return Required(RequireORTEnv) }

// ORTLibEnv names the variable of the ONNX Runtime library the tests load,
// as it names the one `lexsona` loads.
const ORTLibEnv = "LEXSONA_ORT_LIB"

// ORTLib is $LEXSONA_ORT_LIB ("" when unset): what a test passes the ort
// package as the library the variable names (ort.SearchLib's fromEnv,
// models.Options.OrtLibEnv), as the command line does from its
// configuration.
func ORTLib() string { return os.Getenv(ORTLibEnv) }

// ModelVariantEnv names the variable of the model graph a benchmark runs,
// as it names the one `lexsona` runs.
const ModelVariantEnv = "LEXSONA_MODEL_VARIANT"

// ModelVariant is $LEXSONA_MODEL_VARIANT ("" when unset): the
// models.Options.Variant a benchmark run on another graph passes (the int8
// one, by scripts/bench_report.sh).
func ModelVariant() string { return os.Getenv(ModelVariantEnv) }

// pgURLFromEnv is $LEXSONA_TEST_PG (PGEnv).
func pgURLFromEnv() string { return os.Getenv(PGEnv) }

// realModelDirFromEnv is $LEXSONA_REAL_MODEL_DIR (RealModelDirEnv).
func realModelDirFromEnv() string { return os.Getenv(RealModelDirEnv) }

// claudeBinFromEnv is $LEXSONA_CLAUDE_BIN (ClaudeBinEnv).
func claudeBinFromEnv() string { return os.Getenv(ClaudeBinEnv) }

// The variables single tests and benchmarks read, each named once here.
const (
	RealModelWheelEnv      = "LEXSONA_REAL_MODEL_WHEEL"      // a gte/all-MiniLM wheel for models/modelimport's real import
	LangChain4jModelDirEnv = "LEXSONA_LANGCHAIN4J_MODEL_DIR" // the langchain4j model folder of models/conformance
	ConformanceFullEnv     = "LEXSONA_CONFORMANCE_FULL"      // 1: models/conformance compares every row, long ones too
	PythonEnv              = "LEXSONA_PYTHON"                // the Python the conformance tools run
	RealSafetensorsEnv     = "LEXSONA_REAL_SAFETENSORS"      // the official safetensors file of the conformance check
	BenchThreadsEnv        = "LEXSONA_BENCH_THREADS"         // intra-op threads of models/ort's benchmarks
	BenchInt8BeforeEnv     = "LEXSONA_BENCH_INT8_BEFORE"     // an older int8 graph models/ort's benchmark compares with
	WatchArgsEnv           = "LEXSONA_WATCH_ARGS"            // the arguments of cmd/lexsona's watch helper process
	CrashSeedEnv           = "LEXSONA_CRASH_SEED"            // the seed of e2e's crash test
	RequireFaultsEnv       = "LEXSONA_REQUIRE_FAULTS"        // 1: e2e's mounted-fault tests fail instead of skip
	SoakEnv                = "LEXSONA_SOAK"                  // 1: run e2e's soak test
	SoakDurationEnv        = "LEXSONA_SOAK_DURATION"         // its duration (Go syntax)
	SoakRateEnv            = "LEXSONA_SOAK_RATE"             // its calls per second
	SoakTextsEnv           = "LEXSONA_SOAK_TEXTS"            // its distinct texts
	RequireBrowserEnv      = "LEXSONA_REQUIRE_BROWSER"       // 1: a missing Chromium fails e2e/browser
	ChromiumEnv            = "LEXSONA_CHROMIUM"              // the Chromium e2e/browser drives
	WriteRealFiguresEnv    = "LEXSONA_WRITE_REAL_FIGURES"    // 1: eval records the real corpus's held-out figures
	WriteStreamFiguresEnv  = "LEXSONA_WRITE_STREAM_FIGURES"  // 1: eval records the written stream's figures
	EvalKeepEnv            = "EVAL_KEEP"                     // a folder eval's plot test copies its plots to
)

// Knob is the value of one of the variables above ("" when unset).
func Knob(env string) string { return os.Getenv(env) }
