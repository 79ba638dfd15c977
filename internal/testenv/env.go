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
