package registry

import _ "github.com/lexsona/lexsona/store/sqlite"
