package memory

import _ "github.com/lexsona/lexsona/store/sqlite"
