package classifier

import _ "github.com/lexsona/lexsona/store/sqlite"
