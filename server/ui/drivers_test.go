package ui_test

// The store driver the tests open (storetest.OpenSQLite).
import _ "github.com/lexsona/lexsona/store/sqlite"
