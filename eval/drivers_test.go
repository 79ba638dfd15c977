package eval

import _ "github.com/lexsona/lexsona/store/sqlite"
