package main

import (
	"cmp"
	"context"
	"io"
	"regexp"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/internal/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// run executes the CLI with args and returns the exit code. It is main
// without the process: tests call it directly. It reads the environment
// once (config.Load), for the flags' defaults and the settings no flag gives.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, cfg: config.Load()}
	root := newRoot(a)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err != nil && isCobraUsage(err) {
		err = usageError{err}
	}
	a.close()
	if err != nil {
		a.reportError(err)
	}
	return exitCode(err)
}

// newRoot is the root command with every subcommand; the flags' defaults
// are a.cfg's values (a flag wins over its variable, which wins over the
// built-in default).
func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "lexsona",
		Short: "Behavioral memory for AI coding agents",
		Long: `LexSona turns a user's corrections to an AI coding agent into scoped rules with
a Bayesian confidence, and prints the rules active for a context as a short
persona block to inject into the agent's prompt.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		Version:       buildVersion().short(),
	}
	root.SetVersionTemplate("lexsona {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	pf := root.PersistentFlags()
	pf.StringVar(&a.dbPath, "db", a.cfg.DBPath(), "SQLite database file or postgres:// URL (env LEXSONA_DB; default a SQLite file under $LEXSONA_DATA or ~/.local/share/lexsona)")
	pf.BoolVar(&a.asJSON, "json", false, "print machine-readable JSON")
	pf.StringVar(&a.embedder, "embedder", a.cfg.Embedder, "embedding backend: auto, ort, go or lexical (env LEXSONA_EMBEDDER)")
	pf.StringVar(&a.modelDir, "model-dir", a.cfg.ModelDir, "all-MiniLM-L6-v2 model folder (env LEXSONA_MODEL_DIR)")
	pf.StringVar(&a.variant, "variant", a.cfg.ModelVariant, "model graph: fp32, int8 (model_int8.onnx, written by model import / model quantize), auto (int8 only where measured to classify like fp32 and checked on this CPU), or a published file's suffix (env LEXSONA_MODEL_VARIANT)")
	pf.StringVar(&a.ortLib, "ort-lib", a.cfg.ORTLib, "path of libonnxruntime.so (env LEXSONA_ORT_LIB)")
	pf.BoolVar(&a.verbose, "verbose", false, "log whole diagnostic records (env LEXSONA_LOG=debug); by default each is one short line")
	pf.StringVar(&a.registry, "registry", a.cfg.Registry, "YAML rule registry to sync before classifying (env LEXSONA_REGISTRY)")

	root.AddCommand(
		newMigrateCmd(a), newRulesCmd(a), newRecordCmd(a), newSnapshotCmd(a),
		newWhyCmd(a), newConfigCmd(a), newRegistryCmd(a), newClassifyCmd(a), newConfirmCmd(a),
		newEmbedCmd(a), newModelCmd(a), newServeCmd(a), newMCPCmd(a), newEvalCmd(a), newVersionCmd(a),
		newHookCmd(a), newHooksCmd(a), newSpoolCmd(a), newDoctorCmd(a), newLearnedCmd(a), newRetractCmd(a),
		newWatchCmd(a), newExportCmd(a), newImportCmd(a),
	)
	for _, c := range root.Commands() {
		markUsage(c)
	}
	// serve's and mcp's --idempotency-ttl (addIdempotencyTTLFlag).
	setFlagDefault(root, "idempotency-ttl", a.cfg.IdempotencyTTL)
	return root
}

// setFlagDefault makes value the default of the flag named flag of c and
// of every command under it, when value is not "": the configuration's
// value for a flag registered without the app (addIdempotencyTTLFlag).
func setFlagDefault(c *cobra.Command, flag, value string) {
	if value == "" {
		return
	}
	if f := c.Flags().Lookup(flag); f != nil && f.Value.Set(value) == nil {
		f.DefValue = value
	}
	for _, s := range c.Commands() {
		setFlagDefault(s, flag, value)
	}
}

// markUsage makes flag-parsing errors of every subcommand usage errors.
func markUsage(c *cobra.Command) {
	c.SetFlagErrorFunc(flagError)
	if c.Args == nil {
		c.Args = noArgs
	}
	for _, s := range c.Commands() {
		markUsage(s)
	}
}

// negativeNumber matches pflag's error for a negative number given as a value
// (`config set max_rules -5`), which it takes for a cluster of short flags.
var negativeNumber = regexp.MustCompile(`unknown shorthand flag: '[0-9.]' in (-[0-9.]+)`)

// flagError makes a flag error a usage error (exit 2), with a hint when the
// "flag" was a negative number.
func flagError(_ *cobra.Command, err error) error {
	if m := negativeNumber.FindStringSubmatch(err.Error()); m != nil {
		return usagef("%v: to pass the negative number %s as a value, put -- before it (lexsona config set KEY -- %s)", err, m[1], m[1])
	}
	return usageError{err}
}

// isCobraUsage recognises the invocation errors cobra reports as plain
// errors (not through the flag error hook).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"required flag(s)", "unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// scopeFlags are the flags that name a scope: --env, --project, --agent,
// --tag (repeatable) and --exclude-tag (repeatable).
type scopeFlags struct {
	env, project, agent string
	tags, exclude       []string
	// detect is a project folder whose scope (project, environment, tags,
	// as the hooks detect it) the flags start from (registerDetect).
	detect string
}

// registerDetect adds --detect DIR: the scope of the project in DIR, as the
// hooks see it, which the other scope flags then change.
func (s *scopeFlags) registerDetect(fs *pflag.FlagSet) {
	fs.StringVar(&s.detect, "detect", "", "start from the scope of the project in `DIR` as the hooks detect it (its name, .lexsona.yaml, language tags); --project, --env, --agent and --tag change it")
}

func (s *scopeFlags) register(fs *pflag.FlagSet, withExclude bool) {
	fs.StringVar(&s.env, "env", "", "scope environment (e.g. work, personal)")
	fs.StringVar(&s.project, "project", "", "scope project")
	fs.StringVar(&s.agent, "agent", "", "scope agent family (e.g. claude, gpt, copilot)")
	fs.StringSliceVar(&s.tags, "tag", nil, "context tag (repeatable, or comma-separated)")
	if withExclude {
		fs.StringSliceVar(&s.exclude, "exclude-tag", nil, "tag that switches the rule off (repeatable)")
	}
}

// scope returns the normalised, validated scope (EINVALID naming a bad
// value): the detected one (--detect) changed by the flags, or the flags'.
func (s *scopeFlags) scope() (engine.Scope, error) {
	sc := engine.Scope{Environment: s.env, Project: s.project, AgentFamily: s.agent, ContextTags: s.tags, ExcludeTags: s.exclude}
	if s.detect != "" {
		d, err := hooks.DetectScope(s.detect, s.agent)
		if err != nil {
			return engine.Scope{}, err
		}
		sc.Environment = cmp.Or(s.env, d.Environment)
		sc.Project = cmp.Or(s.project, d.Project)
		sc.ContextTags = append(d.ContextTags, s.tags...)
	}
	return engine.ParseScope(sc)
}
