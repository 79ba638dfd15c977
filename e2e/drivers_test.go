package e2e

import _ "github.com/lexsona/lexsona/store/sqlite"
