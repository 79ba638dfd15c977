package eval

import (
	"bytes"
	_ "embed"

	"github.com/lexsona/lexsona/registry"
)

// ShippedName is the name the built-in dataset's problems and reports carry.
const ShippedName = "eval/testdata/corrections.jsonl"

//go:embed testdata/corrections.jsonl
var shippedJSONL []byte

// ShippedDataset returns the labelled dataset written for the default rule
// pack (match, new, ambiguous and contradiction corrections, each kind split
// half dev and half test; testdata/DATASET.md describes it), embedded in the
// binary, validated against reg (nil: the default pack). Errors: a *DatasetError (EINVALID) when reg lacks a rule the
// dataset names.
func ShippedDataset(reg *registry.Registry) (*Dataset, error) {
	return ParseDataset(bytes.NewReader(shippedJSONL), ShippedName, reg)
}
