package main

// The store drivers this program is built with.
import (
	_ "github.com/lexsona/lexsona/store/postgres"
	_ "github.com/lexsona/lexsona/store/sqlite"
)
