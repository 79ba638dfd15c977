package ui

import (
	"io"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/server/internal/readonly"
)

// source is one origin of rules with its counts by state.
type source struct {
	Kind   string // registry, user or correction
	Name   string // the registry's name; "" for user and correction rules
	Total  int
	Active int
	Cands  int
	Arch   int
}

// registryPage lists the sources in force and, after an upload, the preview
// of a sync or its result.
type registryPage struct {
	Sources  []source
	Plan     *syncPlan
	Name     string
	File     string // the uploaded file's name, for problems
	YAML     string
	Problems []engine.Problem
	Message  string
	Summary  *memory.Summary
}

func (p *registryPage) title() (string, string) { return "Registry", "registry" }

// sources counts the rules of every registry, the user's and the learned.
func (u *UI) sources(rc *reqCtx) ([]source, []engine.RuleView, error) {
	all, err := rc.mem.ListRules(rc.ctx(), memory.RulesQuery{Limit: memory.MaxRulesLimit})
	if err != nil {
		return nil, nil, err
	}
	var out []source
	for _, r := range all.Rules {
		kind, name := r.Source, r.Registry
		if kind != engine.SourceRegistry {
			name = ""
		}
		i := slices.IndexFunc(out, func(s source) bool { return s.Kind == kind && s.Name == name })
		if i < 0 {
			out = append(out, source{Kind: kind, Name: name})
			i = len(out) - 1
		}
		s := &out[i]
		s.Total++
		switch {
		case r.Status == engine.StatusArchived:
			s.Arch++
		case r.Status == engine.StatusCandidate:
			s.Cands++
		case r.Active:
			s.Active++
		}
	}
	slices.SortFunc(out, func(a, b source) int {
		return strings.Compare(a.Kind+"\x00"+a.Name, b.Kind+"\x00"+b.Name)
	})
	return out, all.Rules, nil
}

func (u *UI) registry(rc *reqCtx) error {
	src, _, err := u.sources(rc)
	if err != nil {
		return err
	}
	u.render(rc, http.StatusOK, "registry", &registryPage{Sources: src})
	return nil
}

// uploaded reads the registry of the form: the YAML of the file, else of
// the text area, and the name given (the YAML's name: when it is empty).
func uploaded(r *http.Request) (registry.Source, error) {
	src := registry.Source{Name: strings.TrimSpace(r.PostFormValue("name")), File: strings.TrimSpace(r.PostFormValue("file_name"))}
	if f, h, ferr := r.FormFile("file"); ferr == nil {
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, registry.MaxFileSize+1))
		if err != nil {
			return src, engine.Errorf(engine.EINVALID, "the uploaded file cannot be read")
		}
		src.YAML, src.File = data, path.Base(h.Filename)
	} else {
		src.YAML = []byte(strings.ReplaceAll(r.PostFormValue("yaml"), "\r\n", "\n"))
	}
	if len(strings.TrimSpace(string(src.YAML))) == 0 {
		return src, engine.Errorf(engine.EINVALID, "choose a registry YAML file to upload")
	}
	return src, nil
}

// refuseSharedUpload answers 403 when the upload is a registry the session's
// tenant receives read-only from another tenant (Config.SharedReadOnly).
// An upload whose name cannot be read is left to the sync, which reports
// its problems.
func (u *UI) refuseSharedUpload(rc *reqCtx, up registry.Source) error {
	if msg := readonly.Sync(up, u.receives(rc)); msg != "" {
		return &httpError{http.StatusForbidden, msg}
	}
	return nil
}

// registryPreview shows what syncing the upload would add, update,
// archive and keep (memory.Service.PlanRegistry: the sync's own decisions,
// rolled back), or why it would be refused; nothing is written.
func (u *UI) registryPreview(rc *reqCtx) error {
	up, err := uploaded(rc.r)
	if err != nil {
		return err
	}
	if err := u.refuseSharedUpload(rc, up); err != nil {
		return err
	}
	src, rules, err := u.sources(rc)
	if err != nil {
		return err
	}
	p := &registryPage{Sources: src, File: up.File}
	reg, plan, err := rc.mem.PlanRegistry(rc.ctx(), up, memory.SyncOptions{})
	if err != nil {
		p.Problems = registry.Problems(err)
		switch engine.ErrorCode(err) {
		case engine.EINVALID, engine.ECONFLICT, engine.ETOOLARGE:
		default:
			return err
		}
		p.Message = engine.ErrorMessage(err)
		u.render(rc, statusOf[engine.ErrorCode(err)], "registry", p)
		return nil
	}
	p.Plan, p.Name, p.YAML = describePlan(reg, plan, rules), reg.Name(), string(up.YAML)
	u.render(rc, http.StatusOK, "registry", p)
	return nil
}

// registrySync syncs the YAML confirmed on the preview, then passes the
// registry on (Config.OnRegistrySynced).
func (u *UI) registrySync(rc *reqCtx) error {
	up, err := uploaded(rc.r)
	if err != nil {
		return err
	}
	if err := u.refuseSharedUpload(rc, up); err != nil {
		return err
	}
	reg, sum, err := rc.mem.SyncRegistry(rc.ctx(), up, memory.SyncOptions{})
	if err != nil {
		return err
	}
	u.synced(rc.ctx(), rc.sess.tenant, reg.Name())
	src, _, err := u.sources(rc)
	if err != nil {
		return err
	}
	u.render(rc, http.StatusOK, "registry", &registryPage{Sources: src, Summary: &sum, Name: reg.Name()})
	return nil
}
