package sqlite_test

import (
	"testing"

	"github.com/lexsona/lexsona/store/storetest"
)

// TestContract runs the store contract suite against SQLite files.
func TestContract(t *testing.T) { storetest.Run(t, storetest.SQLite) }
