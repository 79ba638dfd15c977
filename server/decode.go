package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"
	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
)

// readBody reads the whole request body (bounded by limitsMiddleware). A
// body over the limit is ETOOLARGE; one that did not arrive before the
// server's read deadline is a request_timeout (408); one cut short is
// EINVALID. The messages never carry the connection's addresses.
func readBody(c echo.Context) ([]byte, error) {
	b, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var mbe *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &mbe):
			return nil, engine.Errorf(engine.ETOOLARGE, "request body is larger than the %d-byte limit", mbe.Limit)
		case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
			return nil, &apiError{code: codeRequestTimeout, msg: "the request body did not arrive in time: send it whole without pausing"}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, engine.Errorf(engine.EINVALID, "the request body ended before its declared length")
		}
		return nil, engine.Errorf(engine.EINVALID, "cannot read the request body: the connection failed")
	}
	return b, nil
}

// checkContentType requires one of the wanted media types (a JSON one also
// matches any +json type). Requiring it is also a defence against browsers:
// a web page can send a cross-site POST without a preflight only with a
// missing, text/plain or form Content-Type, which are refused here.
func checkContentType(c echo.Context, want ...string) error {
	ct := c.Request().Header.Get(echo.HeaderContentType)
	if ct == "" {
		return engine.Errorf(engine.EINVALID, "the Content-Type header is missing: send %s", strings.Join(want, " or "))
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil {
		for _, w := range want {
			if mt == w || (w == "application/json" && strings.HasSuffix(mt, "+json")) {
				return nil
			}
		}
	}
	return engine.Errorf(engine.EINVALID, "Content-Type %q is not accepted here: send %s", ct, strings.Join(want, " or "))
}

// decodeJSON decodes the request body into v: one JSON value, valid UTF-8,
// no unknown fields and no null anywhere (unless lenient), nothing after it;
// then it runs the struct's validate tags. Every failure is an EINVALID (or ETOOLARGE) error
// with a message naming what was wrong.
func (s *Server) decodeJSON(c echo.Context, v any, lenient bool) error {
	body, err := jsonBody(c)
	if err != nil {
		return err
	}
	return s.decodeBytes(body, v, lenient)
}

// decodeOptionalJSON is decodeJSON (not lenient) for a body that may be
// left out: without one, v stays as it is.
func (s *Server) decodeOptionalJSON(c echo.Context, v any) error {
	body, err := jsonBody(c)
	if err != nil || len(body) == 0 {
		return err
	}
	return s.decodeBytes(body, v, false)
}

// jsonBody reads the request body; one that is not empty must be sent as
// application/json. Errors: readBody's and checkContentType's.
func jsonBody(c echo.Context) ([]byte, error) {
	body, err := readBody(c)
	if err == nil && len(body) > 0 {
		err = checkContentType(c, "application/json")
	}
	return body, err
}

// decodeBytes is decodeJSON on a byte slice.
func (s *Server) decodeBytes(body []byte, v any, lenient bool) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return engine.Errorf(engine.EINVALID, "request body is empty: want a JSON object")
	}
	if !utf8.Valid(body) {
		return engine.Errorf(engine.EINVALID, "request body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if !lenient {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return engine.Errorf(engine.EINVALID, "request body is not valid JSON: data after the JSON value")
	}
	if !lenient {
		switch path, ok := nullIn(body); {
		case ok && path == "":
			return engine.Errorf(engine.EINVALID, "request body is null: want a JSON object")
		case ok:
			return engine.Errorf(engine.EINVALID, "field %q is null: give it a value or leave it out", path)
		}
	}
	return s.validate(v)
}

// nullIn returns the path (like scope.exclude_tags[0]) of the first null in
// the JSON document body, members in sorted order. A null would otherwise
// decode as the field's zero value: a request the document refuses (every
// field of a strict body has a type other than null) would be served as if
// the field were absent or empty.
func nullIn(body []byte) (string, bool) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return "", false
	}
	var walk func(v any, path string) (string, bool)
	walk = func(v any, path string) (string, bool) {
		switch t := v.(type) {
		case nil:
			return path, true
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				if np, ok := walk(t[k], p); ok {
					return np, true
				}
			}
		case []any:
			for i, e := range t {
				if np, ok := walk(e, fmt.Sprintf("%s[%d]", path, i)); ok {
					return np, true
				}
			}
		}
		return "", false
	}
	return walk(doc, "")
}

// jsonError explains a decoding error without Go type names.
func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return engine.Errorf(engine.EINVALID, "request body is not valid JSON: %v (at byte %d)", se, se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return engine.Errorf(engine.EINVALID, "request body is not valid JSON: it ends too early")
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			return engine.Errorf(engine.EINVALID, "request body is a JSON %s: want a JSON object", te.Value)
		}
		return engine.Errorf(engine.EINVALID, "field %q is a JSON %s: want %s", field, te.Value, jsonKind(te.Type))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return engine.Errorf(engine.EINVALID, "request body has an unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return engine.Errorf(engine.EINVALID, "request body is not valid JSON: %v", err)
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "an object"
}

// newValidator returns a validator that names fields by their JSON names.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		if name == "" {
			return f.Name
		}
		return name
	})
	return v
}

// validate runs v's validate tags and turns the first failure into an
// EINVALID error naming the field.
func (s *Server) validate(v any) error {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil
	}
	err := s.validator.Struct(v)
	if err == nil {
		return nil
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) || len(ves) == 0 {
		return engine.Errorf(engine.EINVALID, "request body is not valid: %v", err)
	}
	fe := ves[0]
	field := fe.Namespace()
	if _, rest, ok := strings.Cut(field, "."); ok {
		field = rest // drop the struct's own name
	}
	switch fe.Tag() {
	case "required":
		return engine.Errorf(engine.EINVALID, "field %q is required", field)
	case "oneof":
		return engine.Errorf(engine.EINVALID, "field %q is %v: want one of %s", field, fe.Value(), strings.ReplaceAll(fe.Param(), " ", ", "))
	case "max":
		return engine.Errorf(engine.EINVALID, "field %q is too long: at most %s", field, fe.Param())
	case "min":
		return engine.Errorf(engine.EINVALID, "field %q is too short: at least %s", field, fe.Param())
	}
	return engine.Errorf(engine.EINVALID, "field %q fails the %s check", field, fmt.Sprint(fe.Tag()))
}
