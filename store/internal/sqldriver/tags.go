package sqldriver

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Tags is how a driver stores a rule's tag lists: the databases' column
// types differ (a JSON array in a TEXT column, a text[]).
type Tags interface {
	// Arg is the statement argument that stores tags (NULL when empty).
	Arg(tags []string) any
	// Dest is the Scan destination that reads a stored list into *dst.
	Dest(dst *[]string) any
}

// JSONTags stores a tag list as a JSON array in a text column, NULL when it
// is empty. Its Dest reads the column as stored, NULL as no tags.
type JSONTags struct{}

// ArrayTags stores a tag list as an array the driver passes as is (text[]).
type ArrayTags struct{}

func (JSONTags) Arg(tags []string) any {
	if len(tags) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, t := range tags {
		if i > 0 {
			b.WriteByte(',')
		}
		q, _ := json.Marshal(t)
		b.Write(q)
	}
	b.WriteByte(']')
	return b.String()
}

func (JSONTags) Dest(dst *[]string) any { return (*jsonTagsDest)(dst) }

func (ArrayTags) Arg(tags []string) any {
	if len(tags) == 0 {
		return nil
	}
	return tags
}

func (ArrayTags) Dest(dst *[]string) any { return dst }

// jsonTagsDest is a database/sql Scanner of a JSON tag list.
type jsonTagsDest []string

func (d *jsonTagsDest) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("store: stored tag list of type %T", src)
	}
	tags, err := ParseJSONTags(s)
	*d = tags
	return err
}

// ParseJSONTags reads a JSON tag array; "" (NULL) and "[]" are no tags
// (nil). Arrays of plain strings without escapes take a fast path.
func ParseJSONTags(s string) ([]string, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' && !strings.ContainsAny(s, `\ `) {
		var out []string
		for _, part := range strings.Split(s[1:len(s)-1], ",") {
			if len(part) < 2 || part[0] != '"' || part[len(part)-1] != '"' {
				out = nil
				break
			}
			out = append(out, part[1:len(part)-1])
		}
		if out != nil {
			return out, nil
		}
	}
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("store: stored tag list %q: %w", s, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
