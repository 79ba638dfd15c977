package server

import _ "github.com/lexsona/lexsona/store/sqlite"
