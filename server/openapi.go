package server

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIDoc is the OpenAPI 3.1 description of the HTTP API, with examples
// (a test checks that it covers every route and that the examples validate).
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the OpenAPI document served at GET /openapi.json.
func OpenAPI() []byte { return append([]byte(nil), openAPIDoc...) }

func handleOpenAPI(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDoc)
}
