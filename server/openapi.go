package server

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIDoc is the OpenAPI 3.1 description of the HTTP API served at GET
// /openapi.json, with examples (a test checks that it covers every route
// and that the examples validate).
//
//go:embed openapi.json
var openAPIDoc []byte

func handleOpenAPI(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDoc)
}
