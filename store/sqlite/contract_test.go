package sqlite_test

import (
	"testing"

	_ "github.com/lexsona/lexsona/store/sqlite"
	"github.com/lexsona/lexsona/store/storetest"
)

// TestContract runs the store contract suite against SQLite files.
func TestContract(t *testing.T) { storetest.Run(t, storetest.SQLite) }
